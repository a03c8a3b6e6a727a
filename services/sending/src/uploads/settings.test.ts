/**
 * The upload variables of `sendingEnv` (README "Configuration"): defaults, bounds, and refusals
 * naming the variable, as both modes read them.
 */
import { ConfigError, loadConfig } from '@stamp/platform';
import { z } from 'zod';

import { sendingEnv } from '../config.ts';
import { LocalDiskStore } from './local-disk.ts';
import { DEFAULT_UPLOAD_MAX_BYTES, uploadStoreOf } from './settings.ts';

const schema = z.object(sendingEnv);

describe('upload configuration', () => {
  it('defaults to 5 MiB on the local disk of the data folder', () => {
    const env = loadConfig(schema, {});
    expect(env).toMatchObject({
      STAMP_UPLOAD_MAX_BYTES: DEFAULT_UPLOAD_MAX_BYTES,
      STAMP_S3_REGION: 'us-east-1',
      STAMP_S3_FORCE_PATH_STYLE: 'false',
    });
    expect(DEFAULT_UPLOAD_MAX_BYTES).toBe(5 * 1024 * 1024);
    expect(env.STAMP_S3_BUCKET).toBeUndefined();
    expect(uploadStoreOf(env, '/srv/stamp')).toBeInstanceOf(LocalDiskStore);
    expect(uploadStoreOf(env, '/srv/stamp').description).toBe('local disk /srv/stamp/uploads');
  });

  it('reads a cap and an S3-compatible bucket', () => {
    const env = loadConfig(schema, {
      STAMP_UPLOAD_MAX_BYTES: '1048576',
      STAMP_S3_BUCKET: 'stamp-images',
      STAMP_S3_ENDPOINT: 'https://storage.example.net',
      STAMP_S3_REGION: 'auto',
      STAMP_S3_FORCE_PATH_STYLE: 'true',
    });
    expect(env.STAMP_UPLOAD_MAX_BYTES).toBe(1048576);
    expect(uploadStoreOf(env, '.data').description).toBe(
      's3 bucket stamp-images at https://storage.example.net',
    );
  });

  it.each([
    ['STAMP_UPLOAD_MAX_BYTES', 'five'],
    ['STAMP_UPLOAD_MAX_BYTES', '0'],
    ['STAMP_UPLOAD_MAX_BYTES', String(50 * 1024 * 1024 + 1)],
    ['STAMP_S3_BUCKET', ''],
    ['STAMP_S3_BUCKET', 'my bucket'],
    ['STAMP_S3_ENDPOINT', 'minio:9000'],
    ['STAMP_S3_ENDPOINT', 'ftp://minio:9000'],
    ['STAMP_S3_REGION', 'EU West'],
    ['STAMP_S3_FORCE_PATH_STYLE', 'yes'],
  ])('refuses %s=%j, naming it', (name, value) => {
    expect(() => loadConfig(schema, { [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { [name]: value })).toThrow(name);
  });
});
