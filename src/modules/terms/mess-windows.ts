import type { MessWindowRow } from './terms.schema';

export const WINDOW_STATUSES = ['scheduled', 'open', 'closed', 'allocated', 'applied', 'cancelled'] as const;
export type WindowStatus = (typeof WINDOW_STATUSES)[number];

/**
 * A window's status at `now`: `scheduled` before `opensAt`, `open` until `closesAt` (while choices are taken),
 * `closed` from then until the lottery has run (within a minute, or at `POST …/close`), `allocated` once it has,
 * `applied` once the moves are made, or `cancelled`.
 */
export function windowStatus(window: MessWindowRow, now: Date): WindowStatus {
  if (window.cancelledAt) return 'cancelled';
  if (window.appliedAt) return 'applied';
  if (window.allocatedAt) return 'allocated';
  if (now < window.opensAt) return 'scheduled';
  return now < window.closesAt ? 'open' : 'closed';
}

/** Whether a member may save or withdraw a choice at `now`: in `[opensAt, closesAt)`, before the lottery. */
export const takesChoices = (window: MessWindowRow, now: Date): boolean =>
  !window.cancelledAt && !window.allocatedAt && now >= window.opensAt && now < window.closesAt;

export const NOT_OPEN = 'The window is not open';
export const WINDOW_NOT_FOUND = 'Window not found';
export const CHOICE_NOT_FOUND = 'Choice not found';
export const NOT_ALLOCATED = 'The window is not allocated yet';
export const ALREADY_APPLIED = 'The window is applied: its moves are made';
export const ALREADY_CLOSED = 'The window is already allocated';
export const CANCELLED = 'The window is cancelled';
export const NOT_YET_OPEN = 'The window has not opened yet';
export const NOT_A_DINER = 'Only approved members who dine choose a mess';
