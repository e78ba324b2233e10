import type { Channel, ChannelPreference } from './notification-types';
import type { AcceptedOutcome, ChannelOutcome } from './notifications.schema';

/**
 * Channel routing, kept free of I/O so the rules are tested on their own.
 *
 * - A type without WhatsApp support (flag 2) goes by email, whatever the member prefers.
 * - `email` → email; `whatsapp` → WhatsApp only.
 * - `both` → WhatsApp first, email as the fallback; when email is disabled only WhatsApp is attempted.
 *
 * A disabled messaging channel or a missing phone does not change the route: the WhatsApp attempt fails with the
 * contract's error text, and `both` then falls back to email like for any other messaging failure.
 */
export function planRoute(input: {
  preference: ChannelPreference;
  whatsappSupported: boolean;
  emailEnabled: boolean;
}): Channel[] {
  if (!input.whatsappSupported || input.preference === 'email') return ['email'];
  if (input.preference === 'whatsapp') return ['whatsapp'];
  return input.emailEnabled ? ['whatsapp', 'email'] : ['whatsapp'];
}

export type NextStep =
  /** `inFlightSince`: an earlier send through this channel started then and its outcome is unknown. */
  | { kind: 'attempt'; channel: Channel; fallback: boolean; inFlightSince?: string }
  | { kind: 'confirm'; channel: Channel; outcome: AcceptedOutcome }
  | { kind: 'sent'; via: Channel; fallbackUsed: boolean; messageId?: string }
  | { kind: 'failed'; error: string };

/**
 * What to do next, given the outcomes recorded so far: the first channel without an outcome (or with a send of
 * unknown outcome) is attempted, one the
 * provider accepted has its final status read, the first that succeeded ends it, and when every channel failed the
 * notification failed.
 */
export function nextStep(route: Channel[], outcomes: Partial<Record<Channel, ChannelOutcome>>): NextStep {
  let lastError = 'No channel to send through';
  for (const [index, channel] of route.entries()) {
    const outcome = outcomes[channel];
    if (!outcome) return { kind: 'attempt', channel, fallback: index > 0 };
    if (outcome.ok === 'sending')
      return { kind: 'attempt', channel, fallback: index > 0, inFlightSince: outcome.at };
    if (outcome.ok === 'accepted') return { kind: 'confirm', channel, outcome };
    if (outcome.ok)
      return { kind: 'sent', via: channel, fallbackUsed: index > 0, messageId: outcome.messageId };
    lastError = outcome.error;
  }
  return { kind: 'failed', error: lastError };
}

/**
 * After a channel failed: `fallback` when another channel follows it in the route (any failure moves on, the
 * member should not wait for a flaky provider), `retry` when it was the last channel and the failure is transient
 * (the job runs again later with backoff), `final` when it was the last and permanent, or retries are used up.
 */
export function afterFailure(
  route: Channel[],
  channel: Channel,
  failure: { permanent: boolean },
  retriesLeft: boolean,
): 'fallback' | 'retry' | 'final' {
  const isLast = route.indexOf(channel) === route.length - 1;
  if (!isLast) return 'fallback';
  return !failure.permanent && retriesLeft ? 'retry' : 'final';
}

/** When retrying a notification queued at `createdAt` stops (NOTIFY_RETRY_DEADLINE_HOURS later). */
export function retryDeadline(createdAt: Date, hours: number): Date {
  return new Date(createdAt.getTime() + hours * 3_600_000);
}
