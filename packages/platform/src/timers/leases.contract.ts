import type { LeaseStore } from './leases.ts';

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * Contract suite of the LeaseStore port (architecture brief, "Timers and leases"): one holder at a
 * time, renewal by the holder, takeover after expiry, release. `make` returns a fresh, empty
 * store; `close` (optional) releases it after each test.
 */
export function leaseStoreContract(
  name: string,
  make: () => Promise<{ leases: LeaseStore; close?: () => Promise<void> }>,
): void {
  describe(`LeaseStore contract: ${name}`, () => {
    let leases: LeaseStore;
    let close: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ leases, close } = await make());
    });
    afterEach(async () => {
      await close?.();
    });

    it('grants a lease to one holder at a time', async () => {
      expect(await leases.acquire('relay', 'a', 10_000)).toBe(true);
      expect(await leases.acquire('relay', 'b', 10_000)).toBe(false);
      expect(await leases.acquire('relay', 'c', 10_000)).toBe(false);
      // Leases of other names are independent.
      expect(await leases.acquire('timer-scheduler', 'b', 10_000)).toBe(true);
      expect(await leases.acquire('timer-scheduler', 'a', 10_000)).toBe(false);
    });

    it('lets the holder renew, which extends the lease', async () => {
      // Margins of hundreds of ms: a loaded machine takes tens of ms per round trip.
      expect(await leases.acquire('relay', 'a', 1000)).toBe(true);
      await sleep(600);
      expect(await leases.acquire('relay', 'a', 1000)).toBe(true);
      await sleep(600);
      // Past the first acquire's ttl, within the renewal's: the lease is still held.
      expect(await leases.acquire('relay', 'b', 1000)).toBe(false);
    });

    it('hands an expired lease over to another owner, and not back', async () => {
      expect(await leases.acquire('relay', 'a', 1000)).toBe(true);
      expect(await leases.acquire('relay', 'b', 1000)).toBe(false);
      await sleep(1100);
      expect(await leases.acquire('relay', 'b', 10_000)).toBe(true);
      expect(await leases.acquire('relay', 'a', 10_000)).toBe(false);
    });

    it('frees a released lease at once; only the holder can release it', async () => {
      expect(await leases.acquire('relay', 'a', 10_000)).toBe(true);
      await leases.release('relay', 'b');
      expect(await leases.acquire('relay', 'b', 10_000)).toBe(false);
      await leases.release('relay', 'a');
      expect(await leases.acquire('relay', 'b', 10_000)).toBe(true);
      expect(await leases.acquire('relay', 'a', 10_000)).toBe(false);
      // Releasing a lease nobody holds is harmless.
      await leases.release('nothing', 'a');
      expect(await leases.acquire('nothing', 'a', 10_000)).toBe(true);
    });
  });
}
