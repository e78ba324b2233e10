import { ApiError } from '../errors/api-error';
import { bodyFingerprint, IDEMPOTENCY_KEY_INVALID, idempotencyScope } from './idempotency-key';

const request = { callerId: 'caller', route: 'POST /things', body: { amount: 5, note: 'x' } };

describe('idempotencyScope', () => {
  it('is undefined without the header', () => {
    expect(idempotencyScope(undefined, request)).toBeUndefined();
  });

  it('names the caller, the route, the key and the fingerprint of the body', () => {
    expect(idempotencyScope('key-1', request)).toEqual({
      callerId: 'caller',
      route: 'POST /things',
      key: 'key-1',
      fingerprint: bodyFingerprint(request.body),
    });
    expect(idempotencyScope('~'.repeat(255), request)?.key).toHaveLength(255);
  });

  it.each([
    ['empty', ''],
    ['a space', 'has space'],
    ['non-ASCII', 'é'],
    ['256 characters', 'x'.repeat(256)],
  ])('refuses a key %s with a 400 naming the header', (_, key) => {
    let thrown: unknown;
    try {
      idempotencyScope(key, request);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).getStatus()).toBe(400);
    expect((thrown as ApiError).getResponse()).toMatchObject({
      details: [{ field: 'Idempotency-Key', message: IDEMPOTENCY_KEY_INVALID }],
    });
  });
});

describe('bodyFingerprint', () => {
  it('ignores the order of keys and absent values', () => {
    expect(bodyFingerprint({ a: 1, b: 'x' })).toBe(bodyFingerprint({ b: 'x', a: 1, c: undefined }));
  });

  it('tells different bodies apart', () => {
    expect(bodyFingerprint({ a: 1 })).not.toBe(bodyFingerprint({ a: 2 }));
    expect(bodyFingerprint({ a: 1 })).not.toBe(bodyFingerprint({ a: 1, b: null }));
  });
});
