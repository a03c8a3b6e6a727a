/**
 * Jest setup (`setupFilesAfterEnv`): every answer a test receives through `fetchJson` is checked
 * against the committed OpenAPI document (`docs/openapi.json`), read once per test file when the
 * first answer arrives; see `openapi-responses.ts`. A test may call `checkResponses(undefined)`
 * to talk to servers that are not Stamp's (stand-ins with routes of the same names).
 */
import { join } from 'node:path';

import { checkResponses } from './net.ts';
import { OpenApiResponses } from './openapi-responses.ts';

let document: OpenApiResponses | undefined;

checkResponses((response) => {
  document ??= OpenApiResponses.fromFile(join(process.cwd(), 'docs', 'openapi.json'));
  document.check(response);
});
