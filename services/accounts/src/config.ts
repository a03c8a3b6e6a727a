/** Configuration rules of the accounts service shared by the processes that bootstrap it. */
import { z as zod, type z } from 'zod';

import { shareRandomPart } from './keys.ts';

/** The bootstrap key variables (README "Configuration"). */
export interface BootstrapKeyVariables {
  STAMP_BOOTSTRAP_SECRET_KEY?: string | undefined;
  STAMP_BOOTSTRAP_PUBLIC_KEY?: string | undefined;
}

/**
 * Cross-field rules of `STAMP_BOOTSTRAP_SECRET_KEY` and `STAMP_BOOTSTRAP_PUBLIC_KEY`: both or
 * neither, and never the same random part (the public key would reveal the secret one). Use with
 * `.superRefine`; each broken rule is an issue naming the variables.
 */
export function checkBootstrapKeys(env: BootstrapKeyVariables, context: z.RefinementCtx): void {
  const secret = env.STAMP_BOOTSTRAP_SECRET_KEY;
  const given = env.STAMP_BOOTSTRAP_PUBLIC_KEY;
  if ((secret === undefined) !== (given === undefined)) {
    context.addIssue({
      code: 'custom',
      path: ['STAMP_BOOTSTRAP_SECRET_KEY'],
      message: 'set both STAMP_BOOTSTRAP_SECRET_KEY and STAMP_BOOTSTRAP_PUBLIC_KEY, or neither',
    });
    return;
  }
  if (secret !== undefined && given !== undefined && shareRandomPart(given, secret)) {
    context.addIssue({
      code: 'custom',
      path: ['STAMP_BOOTSTRAP_PUBLIC_KEY'],
      message:
        'STAMP_BOOTSTRAP_PUBLIC_KEY and STAMP_BOOTSTRAP_SECRET_KEY share their random part after ' +
        'pk_/sk_, so the public key would reveal the secret key; give two independent keys',
    });
  }
}

/**
 * The accounts service's variables (API reference, "Configuration"): `STAMP_SIGNUP` (`true`:
 * anybody may sign up; `false`: only the first user of an installation, default `true`).
 */
export const accountsEnv = {
  STAMP_SIGNUP: zod.enum(['true', 'false']).default('true'),
};
