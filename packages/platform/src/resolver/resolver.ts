import { Resolver as NodeResolver } from 'node:dns/promises';

/** Outcome of a DNS query: answers, the name does not exist (NXDOMAIN), or no such records. */
export type DnsStatus = 'ok' | 'nxdomain' | 'nodata' | 'error';

/** Answer of one DNS query. */
export interface DnsAnswer<T> {
  status: DnsStatus;
  records: T[];
}

/** An MX record (RFC 5321 §5.1). */
export interface MxRecord {
  exchange: string;
  priority: number;
}

/** The Resolver port: DNS look-ups through configurable servers (tests use one on loopback). */
export interface Resolver {
  /** TXT records, each joined from its character strings. */
  txt(name: string): Promise<DnsAnswer<string>>;
  mx(name: string): Promise<DnsAnswer<MxRecord>>;
  ns(name: string): Promise<DnsAnswer<string>>;
  a(name: string): Promise<DnsAnswer<string>>;
  aaaa(name: string): Promise<DnsAnswer<string>>;
}

/** Options of {@link DnsResolver}. */
export interface DnsResolverOptions {
  /** Server addresses, `host` or `host:port` (`[v6]:port`); the system's when empty. */
  servers?: readonly string[];
  /** Per-try timeout, ms (default 2000). */
  timeoutMs?: number;
  /** Tries per query (default 2). */
  tries?: number;
}

function statusOf(error: unknown): DnsStatus {
  const code = (error as { code?: string }).code;
  if (code === 'ENOTFOUND') return 'nxdomain';
  if (code === 'ENODATA') return 'nodata';
  return 'error';
}

async function ask<T>(query: () => Promise<T[]>): Promise<DnsAnswer<T>> {
  try {
    const records = await query();
    return { status: records.length > 0 ? 'ok' : 'nodata', records };
  } catch (error) {
    return { status: statusOf(error), records: [] };
  }
}

/** {@link Resolver} on node's c-ares resolver. */
export class DnsResolver implements Resolver {
  private readonly resolver: NodeResolver;

  constructor(options: DnsResolverOptions = {}) {
    this.resolver = new NodeResolver({
      timeout: options.timeoutMs ?? 2000,
      tries: options.tries ?? 2,
    });
    if (options.servers !== undefined && options.servers.length > 0) {
      this.resolver.setServers([...options.servers]);
    }
  }

  txt(name: string): Promise<DnsAnswer<string>> {
    return ask(async () => (await this.resolver.resolveTxt(name)).map((parts) => parts.join('')));
  }

  mx(name: string): Promise<DnsAnswer<MxRecord>> {
    return ask(async () =>
      (await this.resolver.resolveMx(name)).map(({ exchange, priority }) => ({
        exchange,
        priority,
      })),
    );
  }

  ns(name: string): Promise<DnsAnswer<string>> {
    return ask(() => this.resolver.resolveNs(name));
  }

  a(name: string): Promise<DnsAnswer<string>> {
    return ask(() => this.resolver.resolve4(name));
  }

  aaaa(name: string): Promise<DnsAnswer<string>> {
    return ask(() => this.resolver.resolve6(name));
  }
}
