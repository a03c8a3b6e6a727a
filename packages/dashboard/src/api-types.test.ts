/**
 * The dashboard's API client is typed from the platform's OpenAPI document: the committed
 * `app/src/api/schema.d.ts` is what `openapi-typescript` makes of `docs/openapi.json` today
 * (regenerate with `./pnpmw --filter @stamp/dashboard run api-types`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { DASHBOARD_ROOT } from './build.ts';

it('types the API client from the current OpenAPI document', () => {
  const cli = join(
    dirname(
      createRequire(join(DASHBOARD_ROOT, 'package.json')).resolve(
        'openapi-typescript/package.json',
      ),
    ),
    'bin',
    'cli.js',
  );
  const generated = execFileSync(
    process.execPath,
    [cli, join(DASHBOARD_ROOT, '..', '..', 'docs', 'openapi.json')],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const committed = readFileSync(join(DASHBOARD_ROOT, 'app', 'src', 'api', 'schema.d.ts'), 'utf8');
  expect(committed).toBe(generated);
});
