import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { freePort } from '@stamp/testkit/net.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { sampleContactsCsv } from '../../contacts/src/jobs/sample-csv.ts';
import { call, startProcess, stopProcess, TEST_KEYS } from './testing.ts';

/**
 * The memory of the platform is bounded by its caches, not by its data: the process imports
 * 200,000 contacts (two 5 MB CSV files, the most one import takes) as on a small server of 1 GB,
 * whose V8 heap limit is a quarter of its memory (`--max-old-space-size=256`, what V8 chooses
 * there by itself), with the default page cache (`STAMP_CACHE_MB=64`). Its resident memory is
 * read every 50 ms and must stay under 512 MiB throughout.
 */
const BOUND_MIB = 512;

describe('memory while 200,000 contacts are imported', () => {
  let child: ChildProcess | undefined;

  afterAll(async () => {
    if (child !== undefined) await stopProcess(child, 'SIGKILL');
  });

  it(`stays under ${BOUND_MIB} MiB of resident memory`, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    child = await startProcess(
      {
        STAMP_PORT: String(port),
        STAMP_DATA_DIR: temporaryDirectory('stamp-memory-'),
        STAMP_BOOTSTRAP_SECRET_KEY: TEST_KEYS.secretKey,
        STAMP_BOOTSTRAP_PUBLIC_KEY: TEST_KEYS.publicKey,
        STAMP_LOG_LEVEL: 'silent',
      },
      url,
      ['--max-old-space-size=256'],
    );
    const pid = child.pid ?? 0;
    const rss = (): number => {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? '0') / 1024;
    };
    let peak = rss();
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss());
    }, 50);
    try {
      let imported = 0;
      let expected = 0;
      for (const domain of ['example.io', 'example.ie']) {
        const sample = sampleContactsCsv({ rows: 100_000, domain });
        expected += sample.expected.created;
        const form = new FormData();
        form.append('file', new Blob([sample.content], { type: 'text/csv' }), `${domain}.csv`);
        const accepted = await fetch(`${url}/contacts/import`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_KEYS.secretKey}` },
          body: form,
        });
        expect(accepted.status).toBe(202);
        const { jobId } = (await accepted.json()) as { jobId: string };
        for (;;) {
          const job = await call(url, TEST_KEYS.secretKey, 'GET', `/contacts/import/${jobId}`);
          const { status, result } = job.body as { status: string; result: { created: number } };
          if (status === 'COMPLETED') {
            imported += result.created;
            break;
          }
          expect(status).not.toBe('FAILED');
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      const list = await call(url, TEST_KEYS.secretKey, 'GET', '/contacts?limit=1');
      expect(imported).toBe(expected);
      expect((list.body as { total: number }).total).toBe(imported);
    } finally {
      clearInterval(sampler);
    }
    expect(peak).toBeLessThan(BOUND_MIB);
  }, 300_000);
});
