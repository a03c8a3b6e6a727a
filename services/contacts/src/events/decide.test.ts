import { ApiError } from '@stamp/http-kit';

import { decideDeleteTrackedEvents } from './decide.ts';
import { evolveName, initialNameState, trackedEventNameStreamId } from './events.ts';

describe('deleting tracked events by name', () => {
  it('given no deletion, when events of the name exist, then records the bound', () => {
    expect(
      decideDeleteTrackedEvents(initialNameState(), {
        type: 'DeleteTrackedEvents',
        name: 'signup',
        upToPosition: 42,
        found: 3,
      }),
    ).toEqual([{ type: 'TrackedEventsDeleted', data: { name: 'signup', upToPosition: 42 } }]);
  });

  it('given an earlier deletion reaching further, then the bound never moves back', () => {
    const state = evolveName(initialNameState(), {
      type: 'TrackedEventsDeleted',
      data: { name: 'signup', upToPosition: 90 },
    });
    expect(state).toEqual({ deletedUpTo: 90 });
    const [event] = decideDeleteTrackedEvents(state, {
      type: 'DeleteTrackedEvents',
      name: 'signup',
      upToPosition: 50,
      found: 1,
    });
    expect(event?.data.upToPosition).toBe(90);
  });

  it('given no event of the name, then refuses with 404 RESOURCE_NOT_FOUND', () => {
    let thrown: unknown;
    try {
      decideDeleteTrackedEvents(initialNameState(), {
        type: 'DeleteTrackedEvents',
        name: 'nothing',
        upToPosition: 5,
        found: 0,
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });
  });

  it('hashes names into per-project stream ids', () => {
    const id = trackedEventNameStreamId('project-1', 'a/b c');
    expect(id).toMatch(/^trackedEventName-project-1\.[0-9a-f]{64}$/);
    expect(trackedEventNameStreamId('project-2', 'a/b c')).not.toBe(id);
  });
});
