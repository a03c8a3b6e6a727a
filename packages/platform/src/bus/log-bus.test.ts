import { SqliteEventStore } from '../event-store/sqlite-event-store.ts';
import { createLogger } from '../logger.ts';
import { openDatabase } from '../sqlite/database.ts';
import { busContract } from './bus.contract.ts';
import { SqliteCheckpointStore } from './checkpoint-store.ts';
import { LogBus } from './log-bus.ts';

busContract('embedded log bus', () => {
  const db = openDatabase(':memory:');
  const store = new SqliteEventStore(db);
  const checkpoints = new SqliteCheckpointStore(db);
  const logger = createLogger({ level: 'silent' });
  return Promise.resolve({
    store,
    bus: () => new LogBus({ store, checkpoints, logger, retryMs: 5 }),
    close: async () => {
      db.close();
    },
  });
});
