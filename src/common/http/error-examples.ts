/* The pieces every documented error answer is built of: its example bodies, their keys, the words per status. */

/** What an error answer's body says: its `error` text, and `details` for a 400 or `existingId` for a 409. */
export type ErrorExample =
  | string
  | { error: string; details: { field: string; message: string }[] }
  | { error: string; existingId: string };

export const UNSUPPORTED_TYPE = 'Unsupported content type; send application/json';

export const VALIDATION_EXAMPLE = {
  error: 'Validation failed',
  details: [{ field: 'extra', message: 'extra is not an accepted field' }],
} satisfies ErrorExample;

/** What a status means when the route itself answers it. */
export const serviceDescriptions: Record<number, string> = {
  400: 'Invalid input: `details` has one entry per bad field; a malformed id or JSON body says so in `error`',
  401: 'Refused credentials',
  403: 'Not allowed: the caller does not own the record, or the account is not approved',
  404: 'Not found',
  409: 'Conflicts with existing data or with a closed month',
  413: 'Request body too large',
  429: 'Too many requests; wait for the seconds in Retry-After',
  503: 'A dependency is unavailable, or the service is too busy (then with Retry-After)',
};

export const retryAfter = {
  'Retry-After': { description: 'Seconds until a request is accepted again', schema: { type: 'integer' } },
};

export const exampleKey = (text: string, taken: Record<string, unknown>): string => {
  const base =
    text
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'example';
  let key = base;
  for (let n = 2; key in taken; n += 1) key = `${base}-${n}`;
  return key;
};

export const errorBody = (example: ErrorExample) =>
  typeof example === 'string' ? { success: false, error: example } : { success: false, ...example };
