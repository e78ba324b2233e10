import { ApiHeader } from '@nestjs/swagger';
import { createHash } from 'node:crypto';
import { badRequest } from '../errors/api-error';

/** Visible ASCII, 1–255 characters: what the Idempotency-Key header may hold. */
const KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

export const IDEMPOTENCY_KEY_INVALID = 'Idempotency-Key must be 1 to 255 visible ASCII characters';

/**
 * A request made with an Idempotency-Key: who, which route, the key, and the body's fingerprint. A repeat is the same
 * caller, route and key; the fingerprint tells a true repeat from the key reused with another body.
 */
export interface IdempotencyScope {
  callerId: string;
  route: string;
  key: string;
  fingerprint: string;
}

/**
 * The scope of a request from its Idempotency-Key header: undefined without the header, 400 naming the header when
 * it is malformed. `body`: the body as validated.
 */
export function idempotencyScope(
  header: string | undefined,
  request: { callerId: string; route: string; body: object },
): IdempotencyScope | undefined {
  if (header === undefined) return undefined;
  if (!KEY_PATTERN.test(header))
    throw badRequest('Validation failed', [{ field: 'Idempotency-Key', message: IDEMPOTENCY_KEY_INVALID }]);
  return {
    callerId: request.callerId,
    route: request.route,
    key: header,
    fingerprint: bodyFingerprint(request.body),
  };
}

/** The body's keys sorted and absent values dropped: the same request written another way has the same fingerprint. */
export function bodyFingerprint(body: object): string {
  const canonical = Object.fromEntries(
    Object.entries({ ...body })
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** Documents the optional Idempotency-Key header of a route; `per`: what one key stands for ("payment"). */
export const ApiIdempotencyKey = (per: string): MethodDecorator =>
  ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      `Any unique string (a UUID) per ${per}. A repeat with the same key by the same caller to the same path ` +
      'returns the first answer and records nothing more, also when the repeats arrive at once; the same key ' +
      'with a different body is 422. Only a successful answer is kept: after an error, the key may be used again.',
  });
