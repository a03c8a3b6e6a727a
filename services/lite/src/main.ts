import { boundHeapGrowth, ConfigError, createLogger } from '@stamp/platform';

import { startStamp } from './app.ts';
import { readConfig } from './config.ts';

/**
 * `pnpm start`: the whole platform in one process on embedded defaults. Prints the first
 * project's keys once, when they are created; SIGTERM/SIGINT drain in-flight work and exit.
 */
async function main(): Promise<void> {
  boundHeapGrowth();
  let config;
  try {
    config = readConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger({ level: config.STAMP_LOG_LEVEL });
  const stamp = await startStamp(config, logger);
  logger.info({ url: stamp.url, dataDir: config.STAMP_DATA_DIR }, 'Stamp is listening');
  const { bootstrap } = stamp;
  if (bootstrap.secretKey !== undefined && bootstrap.publicKey !== undefined) {
    process.stdout.write(
      [
        '',
        `  Project ${bootstrap.projectId} is ready. Its API keys are shown this once:`,
        `    secret key: ${bootstrap.secretKey}`,
        `    public key: ${bootstrap.publicKey}`,
        '  Lost them? Run: ./pnpmw stamp keys:issue',
        '',
        '',
      ].join('\n'),
    );
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining in-flight work');
    stamp.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
}

void main();
