// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import {
  checkAdapters,
  portWithDefault,
  openPlatform,
  processEnvSchema,
  runMain,
  startProcess,
} from '@stamp/host';
import { KafkaPublisher, KafkaTopics, Relay } from '@stamp/platform/distributed.ts';
import { z } from 'zod';

/** Environment of the relay: the platform's (Kafka is required) and the port of its probes. */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3006),
    STAMP_BUS: z.literal('kafka'),
  })
  .superRefine(checkAdapters);

/**
 * The relay process (distributed mode): publishes the event log to Kafka while it holds the relay
 * lease; run two for availability. `/readyz` is 200 on the active one and on a healthy standby.
 */
runMain(
  'relay',
  schema,
  (env, logger) =>
    startProcess('relay', env, logger, async () => {
      const platform = await openPlatform(env, logger);
      const settings = platform.kafka;
      if (settings === undefined) throw new Error('the relay needs STAMP_BUS=kafka');
      const topics = new KafkaTopics(settings);
      const publisher = new KafkaPublisher(settings);
      const relay = new Relay({
        store: platform.store,
        publisher,
        topics,
        checkpoints: platform.checkpoints,
        leases: platform.leases,
        logger,
      });
      relay.start();
      return {
        modules: [],
        close: async () => {
          await relay.stop();
          await Promise.all([publisher.close(), topics.close()]);
          await platform.close();
        },
      };
    }),
  telemetry,
);
