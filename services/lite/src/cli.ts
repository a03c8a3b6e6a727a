import { createAccountsService } from '@stamp/accounts';
import { asyncApiDocument } from '@stamp/contracts';
import {
  ConfigError,
  createLogger,
  loadOrCreateSecret,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';

import { readConfig } from './config.ts';
import { rebuildViews } from './rebuild.ts';

const usage = `usage: ./pnpmw stamp <command>

commands:
  keys:issue      issue a new key pair for the first project (the old keys stop working)
  views:rebuild   drop every projected view and rebuild it from the event log (stop Stamp first)
  asyncapi        print the AsyncAPI document of the events on the bus as YAML; an optional
                  argument sets the topic prefix (default stamp.). Regenerate the committed
                  copy with: ./pnpmw -s stamp asyncapi > docs/asyncapi.yaml
  openapi         print the OpenAPI 3.1 document of the HTTP API as JSON. Regenerate the committed
                  copy with: ./pnpmw -s stamp openapi > docs/openapi.json
`;

/**
 * The AsyncAPI document of the bus (`asyncApiDocument`) as YAML: block style, no anchors, lines
 * not folded, single quotes (the repository's formatting), so the output is stable and diffs well.
 */
async function asyncApiYaml(topicPrefix: string | undefined): Promise<string> {
  const { stringify } = await import('yaml');
  const document = asyncApiDocument(topicPrefix === undefined ? {} : { topicPrefix });
  return stringify(document, { aliasDuplicateObjects: false, lineWidth: 0, singleQuote: true });
}

/**
 * `./pnpmw stamp <command>`: operator commands on the embedded data directory
 * (`STAMP_DATA_DIR`). They work whether or not the platform is running.
 */
async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  if (command === 'asyncapi' || command === 'openapi') {
    const text =
      command === 'asyncapi'
        ? await asyncApiYaml(argv[1])
        : (await import('./openapi.ts')).openApiJson();
    // Flushed before the process exits, also into a pipe.
    await new Promise<void>((resolve) => {
      process.stdout.write(text, () => {
        resolve();
      });
    });
    return 0;
  }
  if (command === 'views:rebuild') {
    const report = await rebuildViews(readConfig(), createLogger({ level: 'warn' }));
    process.stdout.write(
      `rebuilt ${report.collections.length} views (${report.collections.join(', ')}) ` +
        `from ${report.events} events in ${(report.durationMs / 1000).toFixed(2)} s\n`,
    );
    return 0;
  }
  if (command !== 'keys:issue') {
    process.stderr.write(usage);
    return 2;
  }
  const config = readConfig();
  const logger = createLogger({ level: 'warn' });
  const platform = openEmbeddedPlatform({ dataDir: config.STAMP_DATA_DIR, logger });
  try {
    const accounts = createAccountsService({
      store: platform.store,
      bus: platform.bus,
      views: platform.views,
      logger,
      awaitViews: async () => undefined,
      secrets: new Secrets(config.STAMP_SECRET ?? loadOrCreateSecret(config.STAMP_DATA_DIR)),
      publicUrl: config.STAMP_PUBLIC_URL ?? `http://localhost:${config.STAMP_PORT}`,
      signupOpen: config.STAMP_SIGNUP === 'true',
    });
    const projectId = await accounts.api.defaultProjectId();
    if (projectId === null) {
      process.stderr.write('no project yet: start the platform once with ./pnpmw start\n');
      return 1;
    }
    const issued = await accounts.api.issueKeys(projectId);
    process.stdout.write(
      `project ${projectId}\n  secret key: ${issued.secretKey}\n  public key: ${issued.publicKey}\n`,
    );
    return 0;
  } finally {
    await platform.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
