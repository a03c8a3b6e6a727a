import { ConfigError } from '@stamp/platform';

import { readConfig } from './config.ts';

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    const config = readConfig({});
    expect(config).toMatchObject({
      STAMP_PORT: 3000,
      STAMP_HOST: '127.0.0.1',
      STAMP_DATA_DIR: '.data',
      STAMP_DNS_SERVERS: [],
      STAMP_RATE_LIMIT_PER_MINUTE: 1000,
    });
    expect(config.STAMP_SMTP_URL).toBeUndefined();
  });

  it('reads DNS servers with ports', () => {
    expect(
      readConfig({ STAMP_DNS_SERVERS: '127.0.0.1:5353, [::1]:53,ns.example' }).STAMP_DNS_SERVERS,
    ).toEqual(['127.0.0.1:5353', '[::1]:53', 'ns.example']);
  });

  it('refuses bad values, naming every bad variable', () => {
    let error: unknown;
    try {
      readConfig({
        STAMP_PORT: 'eighty',
        STAMP_SMTP_URL: 'http://relay.example',
        STAMP_BOOTSTRAP_SECRET_KEY: 'sk_testsecretkey0123456789abcdef',
        STAMP_LOG_LEVEL: 'loud',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ['STAMP_PORT', 'STAMP_SMTP_URL', 'STAMP_LOG_LEVEL'])
      expect(message).toContain(name);
    expect(() => readConfig({ STAMP_SECRET: 'too short' })).toThrow(/STAMP_SECRET/);
    expect(() =>
      readConfig({ STAMP_BOOTSTRAP_SECRET_KEY: 'sk_testsecretkey0123456789abcdef' }),
    ).toThrow(/STAMP_BOOTSTRAP_SECRET_KEY/);
    expect(() => readConfig({ STAMP_BOOTSTRAP_PUBLIC_KEY: 'pk_x' })).toThrow(
      /STAMP_BOOTSTRAP_PUBLIC_KEY/,
    );
  });

  it('refuses bootstrap keys with the same random part, naming both variables', () => {
    let error: unknown;
    try {
      readConfig({
        STAMP_BOOTSTRAP_SECRET_KEY: 'sk_SameRandomPart0123456789',
        STAMP_BOOTSTRAP_PUBLIC_KEY: 'pk_SameRandomPart0123456789',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('STAMP_BOOTSTRAP_PUBLIC_KEY');
    expect(message).toContain('STAMP_BOOTSTRAP_SECRET_KEY');
    expect(message).toMatch(/random part/);
    expect(
      readConfig({
        STAMP_BOOTSTRAP_SECRET_KEY: 'sk_SameRandomPart0123456789',
        STAMP_BOOTSTRAP_PUBLIC_KEY: 'pk_OtherRandomPart012345678',
      }).STAMP_BOOTSTRAP_PUBLIC_KEY,
    ).toBe('pk_OtherRandomPart012345678');
  });
});
