import { randomUUID } from 'node:crypto';

import { describeWith, engineUrl, KAFKA } from '@stamp/testkit/engines.ts';

import { openEmbeddedPlatform } from '../embedded.ts';
import { createLogger } from '../logger.ts';
import { Relay } from '../relay/relay.ts';
import { busContract } from './bus.contract.ts';
import { KafkaBus } from './kafka-bus.ts';
import { KafkaPublisher, KafkaTopics } from './kafka.ts';

const brokers = engineUrl(KAFKA, 'Kafka bus contract');

/**
 * The Bus contract on a real Kafka broker: events appended to an embedded store reach Kafka
 * through the relay and the groups through KafkaBus. Each test gets its own topic prefix.
 */
describeWith(brokers)('KafkaBus', () => {
  busContract('Kafka (relay + consumer groups)', async () => {
    const logger = createLogger({ level: 'silent' });
    const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
    const settings = {
      brokers: (brokers ?? '').split(','),
      topicPrefix: `t${randomUUID().slice(0, 8)}.`,
      partitions: 3,
    };
    const topics = new KafkaTopics(settings);
    const publisher = new KafkaPublisher(settings);
    const relay = new Relay({
      store: platform.store,
      publisher,
      topics,
      checkpoints: platform.checkpoints,
      leases: platform.leases,
      logger,
      pollMs: 20,
    });
    relay.start();
    const buses: KafkaBus[] = [];
    return {
      store: platform.store,
      bus: () => {
        const bus = new KafkaBus({
          ...settings,
          logger,
          retryMs: 5,
          sessionTimeoutMs: 6000,
          published: () => Promise.resolve(relay.position()),
        });
        buses.push(bus);
        return bus;
      },
      close: async () => {
        await Promise.all(buses.map((bus) => bus.close()));
        await relay.stop();
        await topics.delete(await topics.list());
        await Promise.all([topics.close(), publisher.close()]);
        await platform.close();
      },
    };
  });
});
