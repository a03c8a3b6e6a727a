import { z } from 'zod';

import { billingEnv, checkBilling, stripeSettingsOf } from './config.ts';

const schema = z.object(billingEnv).superRefine(checkBilling);

const PLANS = JSON.stringify({
  price_pro: { transactional: 50_000, campaigns: null, workflows: 0, inbound: 100 },
});
const KEYS = {
  STAMP_STRIPE_SECRET_KEY: 'sk_test_0123456789',
  STAMP_STRIPE_WEBHOOK_SECRET: 'whsec_0123456789',
};

/** The variables named by the issues of `env`, or [] when it is valid. */
const refused = (env: Record<string, string>): string[] => {
  const result = schema.safeParse(env);
  return result.success ? [] : result.error.issues.map((issue) => String(issue.path[0]));
};

it('turns billing off without keys, and reads the settings with them', () => {
  expect(stripeSettingsOf(schema.parse({}))).toBeNull();
  const settings = stripeSettingsOf(
    schema.parse({ ...KEYS, STAMP_STRIPE_PRICE_ID: 'price_pro', STAMP_STRIPE_PLANS: PLANS }),
  );
  expect(settings).toMatchObject({
    secretKey: KEYS.STAMP_STRIPE_SECRET_KEY,
    priceId: 'price_pro',
    plans: { price_pro: { transactional: 50_000, campaigns: null } },
  });
});

it('names the variable of every broken rule', () => {
  expect(refused({ STAMP_STRIPE_SECRET_KEY: KEYS.STAMP_STRIPE_SECRET_KEY })).toEqual([
    'STAMP_STRIPE_WEBHOOK_SECRET',
  ]);
  expect(refused({ ...KEYS, STAMP_STRIPE_PLANS: PLANS })).toEqual(['STAMP_STRIPE_PRICE_ID']);
  expect(
    refused({ ...KEYS, STAMP_STRIPE_PRICE_ID: 'price_other', STAMP_STRIPE_PLANS: PLANS }),
  ).toEqual(['STAMP_STRIPE_PLANS']);
  expect(refused({ STAMP_STRIPE_PRICE_ID: 'price_pro' })).toEqual(['STAMP_STRIPE_PRICE_ID']);
  expect(refused({ STAMP_STRIPE_PLANS: '{not json' })).toEqual(['STAMP_STRIPE_PLANS']);
  // Every category is required, each an integer ≥ 0 or null.
  expect(
    refused({ STAMP_STRIPE_PLANS: JSON.stringify({ price_pro: { transactional: -1 } }) }),
  ).toContain('STAMP_STRIPE_PLANS');
  expect(refused({ ...KEYS, STAMP_STRIPE_SECRET_KEY: 'pk_live_x' })).toContain(
    'STAMP_STRIPE_SECRET_KEY',
  );
  expect(refused({ STAMP_STRIPE_API_BASE: 'http://127.0.0.1:12111/v1' })).toContain(
    'STAMP_STRIPE_API_BASE',
  );
});
