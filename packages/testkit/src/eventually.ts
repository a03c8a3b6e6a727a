/**
 * Polls `probe` every `intervalMs` (default 50 ms) until it returns a value other than
 * undefined, and returns that value: for effects that reach the views asynchronously.
 * @throws Error naming `what` after `timeoutMs` (default 20 000 ms).
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 20_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
