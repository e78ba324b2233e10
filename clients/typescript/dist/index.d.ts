/**
 * The Mess API client: `schema.ts` is generated from openapi/openapi.json by `npm run client` (openapi-typescript);
 * this file wraps openapi-fetch with the base URL, the bearer token and typed errors. Do not edit schema.ts.
 */
import { type Client, type ClientOptions } from 'openapi-fetch';
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
export declare function createMessClient(options: MessClientOptions): MessClient;
/** Thrown by `unwrap` for an error answer: the status, the typed body, and the texts to show a user. */
export declare class MessApiError extends Error {
    readonly status: number;
    readonly body: ApiErrorBody | undefined;
    readonly response: Response;
    constructor(status: number, body: ApiErrorBody | undefined, response: Response);
    /** The field-by-field messages of a 400 (empty for any other error). */
    get fieldErrors(): {
        field: string;
        message: string;
    }[];
    /** Seconds to wait after a 429 (its Retry-After header), or undefined. */
    get retryAfterSeconds(): number | undefined;
}
/** The error bodies openapi-fetch can hand back; a non-JSON error answer arrives as its text. */
type FetchError = ApiErrorBody | string | undefined;
/**
 * The success body of an openapi-fetch result, or a MessApiError with the error body:
 * `const { expenses } = await unwrap(client.GET('/api/expenses'))`.
 */
export declare function unwrap<T>(call: Promise<{
    data?: T;
    error?: FetchError | object;
    response: Response;
}>): Promise<T>;
