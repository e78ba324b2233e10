import { retriesToCover } from './notification-queue';
import { afterFailure, nextStep, planRoute, retryDeadline } from './routing';

describe('planRoute', () => {
  it.each([
    // preference, WhatsApp supported by the type, email enabled → route
    ['email', true, true, ['email']],
    ['whatsapp', true, true, ['whatsapp']],
    ['both', true, true, ['whatsapp', 'email']],
    ['both', true, false, ['whatsapp']],
    ['whatsapp', true, false, ['whatsapp']],
    ['email', true, false, ['email']],
    // types without flag 2 go by email whatever the member prefers
    ['whatsapp', false, true, ['email']],
    ['both', false, true, ['email']],
    ['both', false, false, ['email']],
  ] as const)(
    '%s (whatsapp supported: %s, email enabled: %s) → %j',
    (preference, whatsappSupported, emailEnabled, route) => {
      expect(planRoute({ preference, whatsappSupported, emailEnabled })).toEqual(route);
    },
  );
});

describe('nextStep', () => {
  const at = '2025-03-01T00:00:00.000Z';

  it('attempts the first channel without an outcome, marking a later one as the fallback', () => {
    expect(nextStep(['whatsapp', 'email'], {})).toEqual({
      kind: 'attempt',
      channel: 'whatsapp',
      fallback: false,
    });
    expect(nextStep(['whatsapp', 'email'], { whatsapp: { ok: false, error: 'invalid', at } })).toEqual({
      kind: 'attempt',
      channel: 'email',
      fallback: true,
    });
  });

  it('ends with the first success, telling whether the fallback delivered it', () => {
    expect(nextStep(['whatsapp', 'email'], { whatsapp: { ok: true, messageId: 'SM1', at } })).toEqual({
      kind: 'sent',
      via: 'whatsapp',
      fallbackUsed: false,
      messageId: 'SM1',
    });
    expect(
      nextStep(['whatsapp', 'email'], {
        whatsapp: { ok: false, error: 'invalid', at },
        email: { ok: true, messageId: '<m@x>', at },
      }),
    ).toEqual({ kind: 'sent', via: 'email', fallbackUsed: true, messageId: '<m@x>' });
  });

  it('fails with the last error when every channel failed', () => {
    expect(
      nextStep(['whatsapp', 'email'], {
        whatsapp: { ok: false, error: 'invalid number', at },
        email: { ok: false, error: 'refused', at },
      }),
    ).toEqual({ kind: 'failed', error: 'refused' });
  });
});

describe('afterFailure', () => {
  it('falls back whenever another channel follows, permanent or not', () => {
    expect(afterFailure(['whatsapp', 'email'], 'whatsapp', { permanent: true }, true)).toBe('fallback');
    expect(afterFailure(['whatsapp', 'email'], 'whatsapp', { permanent: false }, true)).toBe('fallback');
  });

  it('retries a transient failure of the last channel while retries are left', () => {
    expect(afterFailure(['whatsapp', 'email'], 'email', { permanent: false }, true)).toBe('retry');
    expect(afterFailure(['whatsapp'], 'whatsapp', { permanent: false }, true)).toBe('retry');
    expect(afterFailure(['email'], 'email', { permanent: false }, false)).toBe('final');
  });

  it('never retries a permanent failure', () => {
    expect(afterFailure(['whatsapp'], 'whatsapp', { permanent: true }, true)).toBe('final');
    expect(afterFailure(['email'], 'email', { permanent: true }, true)).toBe('final');
  });
});

describe('a send of unknown outcome and the retry deadline', () => {
  it('attempts a channel whose send is in flight again, saying since when', () => {
    const at = '2025-03-01T00:00:00.000Z';
    expect(nextStep(['whatsapp', 'email'], { whatsapp: { ok: 'sending', at } })).toEqual({
      kind: 'attempt',
      channel: 'whatsapp',
      fallback: false,
      inFlightSince: at,
    });
  });

  it('retries long enough for the capped backoff to outlast the deadline', () => {
    // 30 s doubling to 1920 s (3810 s in 7 waits), then 3600 s each: 23 more to pass 24 h
    expect(retriesToCover(24 * 3600, 30, 3600)).toBe(31);
    expect(retriesToCover(60, 60, 3600)).toBe(2);
    expect(retryDeadline(new Date('2025-03-01T00:00:00Z'), 24)).toEqual(new Date('2025-03-02T00:00:00Z'));
  });
});
