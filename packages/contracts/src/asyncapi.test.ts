import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DiagnosticSeverity, Parser } from '@asyncapi/parser';

import { asyncApiDocument } from './asyncapi.ts';
import { EVENT_SCHEMAS, TOPICS } from './event-schemas.ts';

const REGENERATE = './pnpmw -s stamp asyncapi > docs/asyncapi.yaml';

/** What `./pnpmw stamp asyncapi [prefix]` prints today. */
function cliOutput(...args: string[]): string {
  return execFileSync(
    process.execPath,
    [join(process.cwd(), 'services/lite/src/cli.ts'), 'asyncapi', ...args],
    { encoding: 'utf8', cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

describe('the AsyncAPI document', () => {
  let yaml: string;

  beforeAll(() => {
    yaml = cliOutput();
  });

  it('parses with @asyncapi/parser without errors', async () => {
    const { document, diagnostics } = await new Parser().parse(yaml);
    // The diagnostics carry another copy of the severity enum: compared as numbers.
    const errorLevel: number = DiagnosticSeverity.Error;
    const errors = diagnostics.filter((diagnostic) => {
      const level: number = diagnostic.severity;
      return level === errorLevel;
    });
    expect(errors.map((error) => `${error.path.join('.')}: ${error.message}`)).toEqual([]);
    expect(document).toBeDefined();
    if (document === undefined) return;

    expect(document.version()).toBe('3.0.0');
    expect(document.info().title()).toBe('Stamp events');
    const server = document.servers().get('kafka');
    expect(server?.protocol()).toBe('kafka');

    const channels = document.channels();
    expect(channels.length).toBe(TOPICS.length + 1);
    for (const topic of TOPICS) {
      const channel = channels.get(topic.category);
      expect(channel?.address()).toBe(`stamp.${topic.category}`);
      expect(
        channel
          ?.messages()
          .all()
          .map((message) => message.name())
          .sort(),
      ).toEqual([...topic.eventTypes].sort());
    }
    expect(channels.get('deadLetter')?.address()).toBe('stamp.dead-letter');

    const operations = document.operations();
    expect(operations.length).toBe(TOPICS.length + 1);
    expect(operations.all().every((operation) => operation.action() === 'receive')).toBe(true);

    // Every message: JSON content, the envelope payload with its type fixed, key = stream id.
    const messages = document.messages();
    expect(messages.length).toBe(Object.keys(EVENT_SCHEMAS).length + 1);
    for (const message of messages.all()) {
      const name = message.name() ?? '';
      if (name === 'DeadLetter') continue;
      const data = message.payload()?.allOf()?.[1]?.properties()?.data?.anyOf()?.[0];
      expect([name, data?.id()]).toEqual([name, `${name}Data`]);
    }
    const created = messages.all().find((message) => message.name() === 'ContactCreated');
    expect(created?.contentType()).toBe('application/json');
    const payload = JSON.stringify(created?.payload()?.json());
    expect(payload).toContain('"const":"ContactCreated"');
    expect(payload).toContain('"additionalProperties":false');
    expect(payload).toContain('"subscribed"');
    expect(created?.headers()?.properties()?.traceparent).toBeDefined();
    const kafka = created?.bindings().get('kafka')?.value<{ key: { type: string } }>();
    expect(kafka?.key.type).toBe('string');
  });

  it(`is committed up to date in docs/asyncapi.yaml (regenerate: ${REGENERATE})`, () => {
    const committed = readFileSync(join(process.cwd(), 'docs/asyncapi.yaml'), 'utf8');
    if (committed !== yaml) {
      throw new Error(`docs/asyncapi.yaml is stale; regenerate it with: ${REGENERATE}`);
    }
  });

  it('names the topics with the given prefix', () => {
    const document = asyncApiDocument({ topicPrefix: 'acme-' });
    expect(JSON.stringify(document)).toContain('"address":"acme-contact"');
    expect(cliOutput('acme-')).toContain('address: acme-dead-letter');
    expect(asyncApiDocument()).toEqual(asyncApiDocument({ topicPrefix: 'stamp.' }));
  });
});
