/**
 * The Mess API client: `schema.ts` is generated from openapi/openapi.json by `npm run client` (openapi-typescript);
 * this file wraps openapi-fetch with the base URL, the bearer token and typed errors. Do not edit schema.ts.
 */
import createFetchClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };

/** Every schema of the contract by name: `Schemas['ExpenseDto']`. */
export type Schemas = components['schemas'];
/** The service's error envelope: `{success: false, error, details?: [{field, message}]}`. */
export type ErrorBody = Schemas['ErrorResponseDto'];
/** The auth guard's bare body: `{error: 'No token' | 'Invalid token' | 'Forbidden'}` (401/403). */
export type GuardErrorBody = Schemas['GuardErrorDto'];
/** Any error body the API answers with. */
export type ApiErrorBody = ErrorBody | GuardErrorBody;

export interface MessClientOptions {
  /** Where the service runs, without `/api`: `https://mess.example.edu` or `http://localhost:3000`. */
  baseUrl: string;
  /** A bearer token to start with (from `login`), or a function read on every request (e.g. from storage). */
  token?: string | (() => string | undefined | null);
  /** Your own fetch (tests, server-side rendering); defaults to the global one. */
  fetch?: ClientOptions['fetch'];
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * The mess to act in (extension 2.2): an `_id` or a slug, sent as the `mess` query parameter with every request
   * that does not name one itself. Left out: each caller's own mess. A string, or a function read on every request.
   */
  mess?: string | (() => string | undefined | null);
}

export interface MessClient extends Client<paths> {
  /** Sets (or clears, with undefined) the bearer token sent from now on. */
  setToken(token: string | undefined): void;
  /** Sets (or clears, with undefined) the mess requests act in from now on. */
  setMess(mess: string | undefined): void;
}

/** A client for the Mess API: `client.GET('/api/expenses', { params: { query: { page: 1 } } })`. */
export function createMessClient(options: MessClientOptions): MessClient {
  let token = options.token;
  let mess = options.mess;
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  const auth: Middleware = {
    onRequest({ request }) {
      const value = typeof token === 'function' ? token() : token;
      if (value) request.headers.set('Authorization', `Bearer ${value}`);
      return request;
    },
  };
  const inMess: Middleware = {
    onRequest({ request }) {
      const value = typeof mess === 'function' ? mess() : mess;
      if (!value) return request;
      const url = new URL(request.url);
      if (url.searchParams.has('mess')) return request;
      url.searchParams.set('mess', value);
      return new Request(url, request);
    },
  };
  client.use(auth);
  client.use(inMess);
  return Object.assign(client, {
    setToken(next: string | undefined) {
      token = next;
    },
    setMess(next: string | undefined) {
      mess = next;
    },
  });
}

/** Thrown by `unwrap` for an error answer: the status, the typed body, and the texts to show a user. */
export class MessApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | undefined,
    readonly response: Response,
  ) {
    super(body?.error ?? `HTTP ${status}`);
    this.name = 'MessApiError';
  }

  /** The field-by-field messages of a 400 (empty for any other error). */
  get fieldErrors(): { field: string; message: string }[] {
    return this.body && 'details' in this.body ? (this.body.details ?? []) : [];
  }

  /** Seconds to wait after a 429 (its Retry-After header), or undefined. */
  get retryAfterSeconds(): number | undefined {
    const value = Number(this.response.headers.get('retry-after'));
    return Number.isFinite(value) && value > 0 ? value : undefined;
  }
}

/** The error bodies openapi-fetch can hand back; a non-JSON error answer arrives as its text. */
type FetchError = ApiErrorBody | string | undefined;

/**
 * The success body of an openapi-fetch result, or a MessApiError with the error body:
 * `const { expenses } = await unwrap(client.GET('/api/expenses'))`.
 */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: FetchError | object; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const body = error && typeof error === 'object' && 'error' in error ? (error as ApiErrorBody) : undefined;
  throw new MessApiError(response.status, body, response);
}
