import dns2 from 'dns2';

const { Packet } = dns2;
type DnsHandler = dns2.DnsHandler;

/** Records served for one name. TXT values longer than 255 bytes are split into strings. */
export interface DnsZoneEntry {
  A?: string[];
  AAAA?: string[];
  MX?: { exchange: string; priority: number }[];
  NS?: string[];
  TXT?: string[];
}

/** A DNS server on loopback (UDP) answering from an in-memory zone, for tests. */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`, usable as a STAMP_DNS_SERVERS entry. */
  address: string;
  /** Replaces the records of `name` (case-insensitive, no trailing dot). */
  set(name: string, entry: DnsZoneEntry): void;
  /** Removes `name`: queries for it then answer NXDOMAIN. */
  remove(name: string): void;
  close(): Promise<void>;
}

function chunks(value: string): string[] {
  const parts: string[] = [];
  for (let index = 0; index < value.length; index += 255)
    parts.push(value.slice(index, index + 255));
  return parts.length === 0 ? [''] : parts;
}

type UdpServer = ReturnType<typeof dns2.createUDPServer>;
type TcpServer = ReturnType<typeof dns2.createTCPServer>;

async function listenPair(
  handle: DnsHandler,
): Promise<{ udp: UdpServer; tcp: TcpServer; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const udp = dns2.createUDPServer(handle);
    await udp.listen(0, '127.0.0.1');
    const port = udp.address().port;
    const tcp = dns2.createTCPServer(handle);
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => {
          resolve();
        });
      });
      return { udp, tcp, port };
    } catch (error) {
      await new Promise<void>((resolve) => {
        udp.close(() => {
          resolve();
        });
      });
      if (attempt >= 20) throw error;
    }
  }
}

/**
 * Starts a real DNS server (dns2) on 127.0.0.1 with a random UDP port. Unknown names get
 * NXDOMAIN; known names without records of the asked type get an empty NOERROR answer; a name
 * that has children (for example `example.com` when `_dmarc.example.com` exists) exists too.
 */
export async function startDnsServer(
  zone: Record<string, DnsZoneEntry> = {},
): Promise<TestDnsServer> {
  const records = new Map<string, DnsZoneEntry>();
  const set = (name: string, entry: DnsZoneEntry): void => {
    records.set(name.toLowerCase().replace(/\.$/, ''), entry);
  };
  for (const [name, entry] of Object.entries(zone)) set(name, entry);
  const exists = (name: string): boolean =>
    records.has(name) || [...records.keys()].some((known) => known.endsWith(`.${name}`));

  const handle: DnsHandler = (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    if (question === undefined) {
      void send(response);
      return;
    }
    const name = question.name.toLowerCase().replace(/\.$/, '');
    const entry = records.get(name);
    if (entry === undefined) {
      if (!exists(name)) response.header.rcode = Packet.RCODE.NXDOMAIN;
      void send(response);
      return;
    }
    const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
    switch (question.type) {
      case Packet.TYPE.A:
        for (const address of entry.A ?? [])
          response.answers.push({ ...base, type: Packet.TYPE.A, address } as never);
        break;
      case Packet.TYPE.AAAA:
        for (const address of entry.AAAA ?? []) {
          response.answers.push({ ...base, type: Packet.TYPE.AAAA, address } as never);
        }
        break;
      case Packet.TYPE.MX:
        for (const mx of entry.MX ?? [])
          response.answers.push({ ...base, type: Packet.TYPE.MX, ...mx } as never);
        break;
      case Packet.TYPE.NS:
        for (const ns of entry.NS ?? [])
          response.answers.push({ ...base, type: Packet.TYPE.NS, ns } as never);
        break;
      case Packet.TYPE.TXT:
        for (const text of entry.TXT ?? []) {
          response.answers.push({ ...base, type: Packet.TYPE.TXT, data: chunks(text) } as never);
        }
        break;
      default:
        break;
    }
    void send(response);
  };
  // UDP and TCP on the same port: resolvers retry over TCP when an answer exceeds 512 bytes.
  // The UDP port is chosen by the system; when its TCP twin is taken, another pair is tried.
  const { udp, tcp, port } = await listenPair(handle);
  return {
    address: `127.0.0.1:${port}`,
    set,
    remove: (name) => records.delete(name.toLowerCase().replace(/\.$/, '')),
    close: async () => {
      await new Promise<void>((resolve) => {
        udp.close(() => {
          resolve();
        });
      });
      await new Promise<void>((resolve) => {
        tcp.close(() => {
          resolve();
        });
      });
    },
  };
}
