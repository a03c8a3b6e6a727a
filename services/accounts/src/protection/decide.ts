/**
 * Project protection (issue "Bounces and complaints"): a project whose recent email bounces or
 * draws complaints too often is suspended before it harms the reputation of the sending IPs and
 * domains. Pure.
 */
import type { ProjectEvent, ProjectState, SuspensionData } from '../projects/events.ts';

/** The thresholds (README "Bounces, complaints and suppressions"). */
export const PROTECTION = {
  /** Length of the rolling window the rates are measured over, ms (7 days). */
  windowMs: 7 * 24 * 60 * 60 * 1000,
  /** Sends in the window below which no rate is judged. */
  minimumSends: 500,
  /** Suspended above this fraction of bounced sends. */
  bounceRate: 0.1,
  /** Suspended above this fraction of complained-about sends. */
  complaintRate: 0.005,
} as const;

/** Counts of the window. */
export interface WindowCounts {
  sends: number;
  bounces: number;
  complaints: number;
}

/** The rates of `counts` (0 when nothing was sent). */
export function ratesOf(counts: WindowCounts): { bounceRate: number; complaintRate: number } {
  return {
    bounceRate: counts.sends === 0 ? 0 : counts.bounces / counts.sends,
    complaintRate: counts.sends === 0 ? 0 : counts.complaints / counts.sends,
  };
}

/**
 * The start of the window at `now`: `windowMs` before, or the last reinstatement if later (the
 * sends before it were judged already).
 */
export function windowStart(state: ProjectState, now: Date): Date {
  const start = now.getTime() - PROTECTION.windowMs;
  const reinstated = state.reinstatedAt === null ? 0 : Date.parse(state.reinstatedAt);
  return new Date(Math.max(start, reinstated));
}

/**
 * ProjectSuspended when the project exists, is not suspended, has at least `minimumSends` in the
 * window and a rate above its threshold (the bounce rate first); otherwise nothing.
 */
export function decideProtection(
  state: ProjectState,
  counts: WindowCounts,
  now: Date,
): ProjectEvent[] {
  if (!state.exists || state.suspension !== null || counts.sends < PROTECTION.minimumSends) {
    return [];
  }
  const rates = ratesOf(counts);
  const reason =
    rates.bounceRate > PROTECTION.bounceRate
      ? 'BOUNCE_RATE'
      : rates.complaintRate > PROTECTION.complaintRate
        ? 'COMPLAINT_RATE'
        : null;
  if (reason === null) return [];
  const data: SuspensionData = { reason, ...counts, ...rates, suspendedAt: now.toISOString() };
  return [{ type: 'ProjectSuspended', data }];
}

/** ProjectReinstated when the project is suspended; nothing otherwise. */
export function decideReinstate(state: ProjectState, now: Date): ProjectEvent[] {
  return state.suspension === null
    ? []
    : [{ type: 'ProjectReinstated', data: { reinstatedAt: now.toISOString() } }];
}
