import { NotificationQueue } from '../../src/modules/notifications/notification-queue';
import { NotificationSchedules } from '../../src/modules/notifications/notification-schedules';
import { NotificationTriggers } from '../../src/modules/notifications/notification-triggers';
import type { TestApp } from './app';

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
      return queue.drain();
    },
  };
}
