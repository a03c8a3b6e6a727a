/**
 * `s3rver`, an S3-compatible server run in the test process on loopback: the stand-in for Amazon
 * S3 of the upload tests (no S3 service can be reached from them). It speaks the S3 REST API
 * (path-style URLs, requests signed with its fixed access key `S3RVER`), so the AWS SDK's
 * requests, errors and content types are real ones; it is not Amazon S3 itself.
 */
import type { AddressInfo } from 'node:net';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';
import type S3rver from 's3rver';

/** The credentials s3rver accepts. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** The s3rver module, or the reason it cannot run here. */
function loadS3rver(): { server: typeof S3rver } | { reason: string } {
  try {
    // Loaded on demand, so that a suite can skip with the reason instead of failing to load.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return { server: require('s3rver') as typeof S3rver };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

const loaded = loadS3rver();

/**
 * `describe` when s3rver can run, else `describe.skip` after printing why (`suite` names the
 * suite in that message).
 */
export function describeWithS3rver(suite: string): jest.Describe {
  if ('server' in loaded) return describe;
  console.warn(`${suite}: skipped, the S3 stand-in s3rver cannot be loaded: ${loaded.reason}`);
  return describe.skip;
}

/** A running s3rver: its endpoint URL and how to stop it. */
export interface S3StandIn {
  /** For example `http://127.0.0.1:41234`. */
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Starts s3rver on a free loopback port with the (empty) `buckets`, its data in a temporary
 * folder removed after the test file.
 * @throws Error when s3rver cannot be loaded or does not start.
 */
export async function startS3rver(buckets: readonly string[]): Promise<S3StandIn> {
  if (!('server' in loaded)) throw new Error(`s3rver cannot be loaded: ${loaded.reason}`);
  const server = new loaded.server({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: temporaryDirectory('stamp-s3rver-'),
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const address: AddressInfo = await server.run();
  return { endpoint: `http://127.0.0.1:${address.port}`, close: () => server.close() };
}
