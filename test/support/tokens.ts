import { createHmac } from 'node:crypto';

const b64 = (value: object | string) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Hand-made JWTs for the attacks and edge cases a real client could send. */
export function hs256(
  payload: object,
  secret: string,
  header: object = { alg: 'HS256', typ: 'JWT' },
): string {
  const unsigned = `${b64(header)}.${b64(payload)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

export function unsignedAlgNone(payload: object): string {
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`;
}

export function decodePayload(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}
