import { initialProjectState, type ProjectState } from '../projects/events.ts';
import { decideProtection, decideReinstate, PROTECTION, windowStart } from './decide.ts';

const now = new Date('2026-11-24T12:00:00.000Z');
const project: ProjectState = { ...initialProjectState, exists: true, name: 'P', ownerId: 'u1' };

describe('project protection', () => {
  it('judges no rate below the minimum number of sends', () => {
    expect(decideProtection(project, { sends: 499, bounces: 499, complaints: 499 }, now)).toEqual(
      [],
    );
  });

  it('suspends above 10 % bounces or 0.5 % complaints, not at the threshold', () => {
    expect(decideProtection(project, { sends: 1000, bounces: 100, complaints: 5 }, now)).toEqual(
      [],
    );
    expect(decideProtection(project, { sends: 1000, bounces: 101, complaints: 0 }, now)).toEqual([
      {
        type: 'ProjectSuspended',
        data: {
          reason: 'BOUNCE_RATE',
          sends: 1000,
          bounces: 101,
          complaints: 0,
          bounceRate: 0.101,
          complaintRate: 0,
          suspendedAt: now.toISOString(),
        },
      },
    ]);
    const [complaints] = decideProtection(project, { sends: 1000, bounces: 0, complaints: 6 }, now);
    expect(complaints).toMatchObject({
      type: 'ProjectSuspended',
      data: { reason: 'COMPLAINT_RATE' },
    });
  });

  it('does not suspend twice, nor a project that does not exist', () => {
    const [event] = decideProtection(project, { sends: 500, bounces: 60, complaints: 0 }, now);
    const suspended = {
      ...project,
      suspension: event?.type === 'ProjectSuspended' ? event.data : null,
    };
    expect(decideProtection(suspended, { sends: 500, bounces: 90, complaints: 0 }, now)).toEqual(
      [],
    );
    expect(
      decideProtection(initialProjectState, { sends: 500, bounces: 90, complaints: 0 }, now),
    ).toEqual([]);
    // Reinstated: once, and the window starts afresh then.
    const [reinstated] = decideReinstate(suspended, now);
    expect(reinstated).toEqual({
      type: 'ProjectReinstated',
      data: { reinstatedAt: now.toISOString() },
    });
    expect(decideReinstate(project, now)).toEqual([]);
    const later = new Date(now.getTime() + 60_000);
    expect(windowStart({ ...project, reinstatedAt: now.toISOString() }, later)).toEqual(now);
    expect(windowStart(project, later).getTime()).toBe(later.getTime() - PROTECTION.windowMs);
  });
});
