import { Clock, FixedClock } from '../../src/common/time/clock';
import { AppConfig } from '../../src/config/app-config';
import { NotificationQueue } from '../../src/modules/notifications/notification-queue';
import { NotificationSchedules } from '../../src/modules/notifications/notification-schedules';
import { NotificationTriggers } from '../../src/modules/notifications/notification-triggers';
import type { TestApp } from './app';
import { whileUnavailable } from './unavailable';

/** Handles on the notifications module of a running TestApp, to settle its work deterministically. */
export function notificationsOf(t: TestApp) {
  const queue = t.app.get(NotificationQueue);
  const triggers = t.app.get(NotificationTriggers);
  const schedules = t.app.get(NotificationSchedules);
  return {
    queue,
    triggers,
    schedules,
    /** Waits for event listeners to finish queueing, then delivers everything that is due. */
    async settle(): Promise<number> {
      await triggers.idle();
      // A drain cut by a switchover (TEST_RETRY_UNAVAILABLE) drains again: what it had delivered stays delivered.
      return whileUnavailable(() => queue.drain());
    },
  };
}

/**
 * Puts the app on a FixedClock set to `at`: the app's one Clock instance reads the fixed clock from now on, so the
 * schedules' cron tick, the delivery deadlines and every write see the time the test sets.
 */
export function fixClock(t: TestApp, at: Date): FixedClock {
  const fixed = new FixedClock(at);
  const clock = t.app.get(Clock);
  clock.now = () => fixed.now();
  return fixed;
}

/** Back to the real time after fixClock. */
export function restoreClock(t: TestApp): void {
  delete (t.app.get(Clock) as { now?: unknown }).now;
}

/**
 * One schedule tick as cron runs it (`schedules.tick()`, the path the real timer takes), with the app's clock at
 * `at` and the schedules switched on for just that tick; then back to the real time and schedules off.
 */
export async function tickSchedulesAt(t: TestApp, at: Date): Promise<void> {
  fixClock(t, at);
  const schedules = t.app.get(AppConfig).notifications.schedules;
  schedules.enabled = true;
  try {
    await t.app.get(NotificationSchedules).tick();
  } finally {
    schedules.enabled = false;
    restoreClock(t);
  }
}
