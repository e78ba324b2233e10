import { DeliveryErrors } from './delivery-error';
import { classifyMailError } from './email.channel';
import { classifyMessagingError } from './whatsapp.channel';

const providerError = (status: number, code?: number, message = 'The number +919876543210 is invalid') =>
  Object.assign(new Error(message), { status, code });

describe('classifyMessagingError', () => {
  it.each([
    [400, 63015, DeliveryErrors.notRegistered, true],
    [400, 63016, DeliveryErrors.notRegistered, true],
    [400, 21211, DeliveryErrors.invalidNumber, true],
    [429, 20429, DeliveryErrors.rateLimited, false],
    [429, 63018, DeliveryErrors.rateLimited, false],
    [401, 20003, DeliveryErrors.accountDisabled, true],
    [503, 20500, DeliveryErrors.messagingUnavailable(503), false],
    [400, 21610, DeliveryErrors.messagingRefused('21610'), true],
  ])('HTTP %i code %i → %s', (status, code, text, permanent) => {
    const error = classifyMessagingError(providerError(status, code));
    expect(error.message).toBe(text);
    expect(error.permanent).toBe(permanent);
    expect(error.code).toBe(String(code));
    expect(error.message).not.toContain('+91');
  });

  it('treats network failures and timeouts as transient', () => {
    expect(classifyMessagingError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toMatchObject({
      message: DeliveryErrors.messagingUnreachable,
      permanent: false,
    });
    expect(classifyMessagingError(Object.assign(new Error('x'), { code: 'ECONNABORTED' }))).toMatchObject({
      message: DeliveryErrors.messagingTimeout,
      permanent: false,
    });
  });
});

describe('classifyMailError', () => {
  it('retries connection failures, deferrals and credential refusals; not permanent rejections', () => {
    expect(classifyMailError(Object.assign(new Error('x'), { code: 'ESOCKET' }))).toMatchObject({
      message: DeliveryErrors.mailUnreachable,
      permanent: false,
    });
    expect(classifyMailError(Object.assign(new Error('x'), { code: 'ECONNECTION' }))).toMatchObject({
      permanent: false,
    });
    expect(
      classifyMailError(Object.assign(new Error('x'), { code: 'EAUTH', responseCode: 535 })),
    ).toMatchObject({
      message: DeliveryErrors.mailCredentials,
      permanent: false,
    });
    expect(
      classifyMailError(Object.assign(new Error('x'), { code: 'EMESSAGE', responseCode: 451 })),
    ).toMatchObject({
      message: DeliveryErrors.mailDeferred(451),
      permanent: false,
    });
    // a daily sending limit and enhanced 4.x.x codes mean "later", whatever the reply code says
    expect(
      classifyMailError(
        Object.assign(new Error('x'), {
          code: 'EMESSAGE',
          responseCode: 550,
          response: '550 5.4.5 Daily user sending quota exceeded. d9443c01a7336-21',
        }),
      ),
    ).toMatchObject({ message: DeliveryErrors.mailDeferred(550), permanent: false, code: '5.4.5' });
    expect(
      classifyMailError(
        Object.assign(new Error('x'), {
          code: 'EENVELOPE',
          responseCode: 550,
          response: '550-4.2.1 The user you are trying to contact is receiving mail too quickly',
        }),
      ),
    ).toMatchObject({ permanent: false, code: '4.2.1' });
    expect(
      classifyMailError(
        Object.assign(new Error('x'), {
          code: 'EENVELOPE',
          responseCode: 550,
          response: '550 5.1.1 The email account that you tried to reach does not exist',
        }),
      ),
    ).toMatchObject({ message: DeliveryErrors.mailRecipientRefused, permanent: true });
    expect(
      classifyMailError(Object.assign(new Error('x'), { code: 'EENVELOPE', responseCode: 550 })),
    ).toMatchObject({
      message: DeliveryErrors.mailRecipientRefused,
      permanent: true,
    });
    expect(
      classifyMailError(Object.assign(new Error('x'), { code: 'EMESSAGE', responseCode: 554 })),
    ).toMatchObject({
      message: DeliveryErrors.mailRefused(554),
      permanent: true,
    });
  });
});
