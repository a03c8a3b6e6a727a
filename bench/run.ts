/**
 * `./pnpmw bench <name>`: runs one benchmark of this folder and prints one line per figure.
 * Benchmarks: track, send, memory, restart, million, import, bulk, mongo-views, kafka-clients,
 * distributed, campaign, segments, workflows, tracking, dsn, webhooks, logins, analytics,
 * dashboard. They are measurements, not tests.
 */
const benchmarks = [
  'track',
  'send',
  'memory',
  'restart',
  'million',
  'import',
  'bulk',
  'mongo-views',
  'kafka-clients',
  'distributed',
  'campaign',
  'segments',
  'workflows',
  'tracking',
  'dsn',
  'webhooks',
  'logins',
  'analytics',
  'dashboard',
] as const;
const name = process.argv[2] ?? '';
if (!(benchmarks as readonly string[]).includes(name)) {
  process.stderr.write(`usage: ./pnpmw bench <${benchmarks.join('|')}>\n`);
  process.exit(2);
}
await import(`./${name}.ts`);
