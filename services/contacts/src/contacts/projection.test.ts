import { createLogger, openEmbeddedPlatform, type RecordedEvent } from '@stamp/platform';

import { type ContactEvent } from './events.ts';
import { contactsView, createContactIndexes, projectContactEvent } from './projection.ts';

const recorded = (revision: number, event: ContactEvent): RecordedEvent => ({
  id: `e${revision}`,
  streamId: 'contact-c1',
  revision,
  position: revision + 1,
  type: event.type,
  schemaVersion: 1,
  data: event.data,
  metadata: { projectId: 'p', correlationId: 'r' },
  createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, revision)).toISOString(),
});

describe('contacts projection', () => {
  it('is idempotent: replayed events change nothing; deletion removes the document', async () => {
    const platform = openEmbeddedPlatform({
      dataDir: ':memory:',
      logger: createLogger({ level: 'silent' }),
    });
    await createContactIndexes(platform.views);
    const events = [
      recorded(0, {
        type: 'ContactCreated',
        data: { email: 'a@x.com', subscribed: true, data: { plan: 'pro' } },
      }),
      recorded(1, { type: 'ContactDataChanged', data: { set: { seats: 2 }, unset: ['plan'] } }),
      recorded(2, { type: 'ContactEmailChanged', data: { from: 'a@x.com', to: 'b@x.com' } }),
      recorded(3, { type: 'ContactUnsubscribed', data: {} }),
    ];
    for (const event of events) await projectContactEvent(platform.views, event);
    const expected = {
      _id: 'c1',
      projectId: 'p',
      email: 'b@x.com',
      subscribed: false,
      data: { seats: 2 },
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:03.000Z',
      revision: 3,
    };
    expect(await contactsView(platform.views).findOne({ _id: 'c1' })).toEqual(expected);
    for (const event of events) await projectContactEvent(platform.views, event);
    expect(await contactsView(platform.views).findOne({ _id: 'c1' })).toEqual(expected);

    await projectContactEvent(platform.views, recorded(4, { type: 'ContactDeleted', data: {} }));
    expect(await contactsView(platform.views).findOne({ _id: 'c1' })).toBeNull();
    await platform.close();
  });
});
