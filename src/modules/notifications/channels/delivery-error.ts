import type { Channel } from '../notification-types';

/**
 * A channel's failure in words that are safe to store, log and show: never the provider's own message, which can
 * carry the recipient's number or address. `permanent` failures are not retried (an invalid number stays invalid);
 * transient ones (provider 5xx, timeouts, SMTP unreachable, rate limiting) are.
 */
export class DeliveryError extends Error {
  constructor(
    readonly channel: Channel,
    message: string,
    readonly permanent: boolean,
    /** The provider's error code or the transport's, for logs and support. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** The contract's notification error texts, and ours for the cases it leaves open. */
export const DeliveryErrors = {
  messagingNotConfigured: 'The messaging provider is not configured, so WhatsApp notifications are disabled',
  phoneUnavailable: 'The user phone number is not available',
  notRegistered:
    'The phone number is not registered for WhatsApp messages (sandbox: the phone has not joined the sandbox, ' +
    'or its registration lapsed after 72 hours of inactivity)',
  invalidNumber: 'The phone number is not a valid WhatsApp number',
  rateLimited: 'The messaging provider is rate limiting messages; try again later',
  accountDisabled: 'The messaging account is disabled or its credentials were refused',
  monthlyLimit: (limit: number) => `The monthly limit of ${limit} WhatsApp messages has been reached`,
  messagingUnavailable: (status: number) => `The messaging provider is unavailable (HTTP ${status})`,
  messagingRefused: (code: string) => `The messaging provider refused the message (code ${code})`,
  messagingTimeout: 'The messaging provider did not answer in time',
  messagingUnreachable: 'The messaging provider could not be reached',
  messagingUnconfirmed:
    'The messaging provider accepted the message but did not confirm that it went out in time',
  mailNotConfigured: 'The mail provider is not configured, so email notifications are disabled',
  mailUnreachable: 'The mail server could not be reached',
  mailCredentials: 'The mail server refused the sender credentials',
  mailDeferred: (code: number) => `The mail server deferred the message (SMTP ${code})`,
  mailRefused: (code: number) => `The mail server refused the message (SMTP ${code})`,
  mailRecipientRefused: 'The mail server refused the recipient address',
  mailFailed: 'The email could not be sent',
} as const;

/** Any error of a send as a DeliveryError: a provider's answer as it is, anything else as a transient failure. */
export function asDeliveryError(channel: Channel, error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  // Not a provider answer: a bug or an outage of our own; worth another try, and its message stays in the log only.
  return new DeliveryError(
    channel,
    channel === 'email' ? DeliveryErrors.mailFailed : DeliveryErrors.messagingUnreachable,
    false,
    (error as { code?: string })?.code,
  );
}
