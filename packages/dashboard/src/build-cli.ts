/**
 * `node packages/dashboard/src/build-cli.ts [--force]`: builds the dashboard when its sources
 * changed (run by the start and test commands). Exits 1 when the build fails.
 */
import { ensureDashboardBuilt } from './build.ts';

try {
  const outcome = ensureDashboardBuilt({ force: process.argv.includes('--force') });
  if (outcome.built) {
    process.stdout.write(`Built the dashboard in ${(outcome.durationMs / 1000).toFixed(1)} s\n`);
  }
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
