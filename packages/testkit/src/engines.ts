/**
 * Engines the distributed adapters' suites run against. Each is named by an environment variable
 * (`.ci/run` sets those it starts itself: Kafka and the MongoDB stand-in); a suite whose engine is
 * absent prints why and skips, so it never passes without having run.
 */

/** An engine a suite needs: the environment variable naming it and how to run one. */
export interface EngineSpec {
  /** Environment variable holding the connection string, for example `STAMP_TEST_KAFKA_BROKERS`. */
  variable: string;
  /** What the suite needs, printed when it skips. */
  what: string;
}

/** Kafka brokers, comma-separated `host:port` (`.ci/run` starts a KRaft broker on loopback). */
export const KAFKA: EngineSpec = {
  variable: 'STAMP_TEST_KAFKA_BROKERS',
  what: 'an Apache Kafka broker (tools/kafka/broker.sh start, as .ci/run does)',
};

/**
 * A MongoDB connection string (with a database name). `.ci/run` points it at the mongo-java-server
 * stand-in; set `STAMP_TEST_MONGODB_IS_STANDIN=false` when it is a real MongoDB.
 */
export const MONGODB: EngineSpec = {
  variable: 'STAMP_TEST_MONGODB_URL',
  what: 'a MongoDB server or the stand-in (tools/mongo/server.sh start, as .ci/run does)',
};

/** A KurrentDB connection string, for example `kurrentdb://127.0.0.1:2113?tls=false`. */
export const KURRENTDB: EngineSpec = {
  variable: 'STAMP_TEST_KURRENTDB_URL',
  what: 'a KurrentDB 25.1+ server (none can be installed on this machine)',
};

/**
 * The engine's connection string, or undefined after printing why its suite skips.
 * @param suite name of the suite, for the printed reason
 */
export function engineUrl(spec: EngineSpec, suite: string): string | undefined {
  const value = process.env[spec.variable];
  if (value !== undefined && value !== '') return value;
  console.warn(`${suite}: skipped, ${spec.variable} is not set; it needs ${spec.what}.`);
  return undefined;
}

/** `describe` when `url` is defined, else `describe.skip` (the reason was printed by engineUrl). */
export function describeWith(url: string | undefined): jest.Describe {
  return url === undefined ? describe.skip : describe;
}
