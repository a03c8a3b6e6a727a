/**
 * The dashboard's production build: made by Vite into `dist/` when its sources changed since the
 * last build, so the start command (`./pnpmw start`) and the test command always serve a current
 * build and only the first start after a change pays for it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's folder (`packages/dashboard`). */
export const DASHBOARD_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Where the production build is written and served from: `STAMP_DASHBOARD_DIST`, by default the
 * package's `dist/`.
 */
export const DASHBOARD_DIST = process.env.STAMP_DASHBOARD_DIST ?? join(DASHBOARD_ROOT, 'dist');

/** File in `dist/` holding the fingerprint of the sources the build was made from. */
const FINGERPRINT_FILE = 'build-fingerprint.txt';

/** Every file the build reads from this package: the app's folder and the Vite configuration. */
function sourceFiles(): string[] {
  const files: string[] = [
    join(DASHBOARD_ROOT, 'vite.config.ts'),
    join(DASHBOARD_ROOT, 'package.json'),
  ];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(DASHBOARD_ROOT, 'app'));
  return files;
}

/** SHA-256 over the sources' paths and contents (hex). */
export function sourceFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of sourceFiles()) {
    hash
      .update(relative(DASHBOARD_ROOT, file))
      .update('\0')
      .update(readFileSync(file))
      .update('\0');
  }
  return hash.digest('hex');
}

/** Whether `dist/` holds a build of the current sources. */
export function isBuildCurrent(): boolean {
  const file = join(DASHBOARD_DIST, FINGERPRINT_FILE);
  return existsSync(file) && readFileSync(file, 'utf8').trim() === sourceFingerprint();
}

/** What {@link ensureDashboardBuilt} did. */
export interface BuildOutcome {
  built: boolean;
  /** Time the build took, ms (0 when the build was current). */
  durationMs: number;
}

/**
 * Builds the dashboard with Vite (a child process, output inherited) unless `dist/` already holds
 * a build of the current sources, or always with `force`.
 * @throws Error when the build fails.
 */
export function ensureDashboardBuilt(options: { force?: boolean } = {}): BuildOutcome {
  const fingerprint = sourceFingerprint();
  if (options.force !== true && isBuildCurrent()) return { built: false, durationMs: 0 };
  const vite = join(
    dirname(createRequire(join(DASHBOARD_ROOT, 'package.json')).resolve('vite/package.json')),
    'bin',
    'vite.js',
  );
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [vite, 'build', '--config', join(DASHBOARD_ROOT, 'vite.config.ts'), '--logLevel', 'warn'],
    { cwd: DASHBOARD_ROOT, stdio: 'inherit' },
  );
  if (result.status !== 0) {
    throw new Error(`The dashboard's build failed (vite exited with ${String(result.status)})`);
  }
  writeFileSync(join(DASHBOARD_DIST, FINGERPRINT_FILE), `${fingerprint}\n`);
  return { built: true, durationMs: performance.now() - started };
}
