import { type ChildProcess, spawn } from 'node:child_process';

/**
 * V8 options of every Stamp process, as `./pnpmw start` and the container image give them: a
 * young generation of at most 2 × 8 MiB (`--max-semi-space-size`), which V8 would otherwise size
 * from the machine's memory (up to 2 × 32 MiB) and keep at its largest after start-up.
 */
export const STAMP_NODE_ARGS: readonly string[] = ['--max-semi-space-size=8'];

/**
 * One Stamp process started from its entry point `services/<name>/src/main.ts` (run from the
 * repository's root), as a deployment runs it: the multi-process tests start the services this
 * way.
 */
export class StampProcess {
  readonly name: string;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  private readonly env: Record<string, string>;
  /** The running child, undefined when stopped. */
  child: ChildProcess | undefined;
  private output = '';

  /** `env` comes on top of this process's environment, with `STAMP_PORT` set to `port`. */
  constructor(name: string, port: number, env: Record<string, string>) {
    this.name = name;
    this.url = `http://127.0.0.1:${port}`;
    this.env = { ...env, STAMP_PORT: String(port) };
  }

  /**
   * Starts it and waits until `/readyz` answers 200 (60 s at most).
   * @throws Error with its last output (4,000 characters) when it exits first or is not ready
   *   in time.
   */
  async start(): Promise<void> {
    const child = spawn(
      process.execPath,
      [...STAMP_NODE_ARGS, `services/${this.name}/src/main.ts`],
      {
        cwd: process.cwd(),
        env: { ...process.env, ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    for (let attempt = 0; attempt < 600; attempt++) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited: ${this.output}`);
      try {
        if ((await fetch(`${this.url}/readyz`)).status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${this.name} did not become ready: ${this.output}`);
  }

  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}
