"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.MessApiError = void 0;
exports.createMessClient = createMessClient;
exports.unwrap = unwrap;
/**
 * The Mess API client: `schema.ts` is generated from openapi/openapi.json by `npm run client` (openapi-typescript);
 * this file wraps openapi-fetch with the base URL, the bearer token and typed errors. Do not edit schema.ts.
 */
const openapi_fetch_1 = __importDefault(require("openapi-fetch"));
/** A client for the Mess API: `client.GET('/api/expenses', { params: { query: { page: 1 } } })`. */
function createMessClient(options) {
    let token = options.token;
    let mess = options.mess;
    const client = (0, openapi_fetch_1.default)({
        baseUrl: options.baseUrl.replace(/\/+$/, ''),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
    });
    const auth = {
        onRequest({ request }) {
            const value = typeof token === 'function' ? token() : token;
            if (value)
                request.headers.set('Authorization', `Bearer ${value}`);
            return request;
        },
    };
    const inMess = {
        onRequest({ request }) {
            const value = typeof mess === 'function' ? mess() : mess;
            if (!value)
                return request;
            const url = new URL(request.url);
            if (url.searchParams.has('mess'))
                return request;
            url.searchParams.set('mess', value);
            return new Request(url, request);
        },
    };
    client.use(auth);
    client.use(inMess);
    return Object.assign(client, {
        setToken(next) {
            token = next;
        },
        setMess(next) {
            mess = next;
        },
    });
}
/** Thrown by `unwrap` for an error answer: the status, the typed body, and the texts to show a user. */
class MessApiError extends Error {
    status;
    body;
    response;
    constructor(status, body, response) {
        super(body?.error ?? `HTTP ${status}`);
        this.status = status;
        this.body = body;
        this.response = response;
        this.name = 'MessApiError';
    }
    /** The field-by-field messages of a 400 (empty for any other error). */
    get fieldErrors() {
        return this.body && 'details' in this.body ? (this.body.details ?? []) : [];
    }
    /** Seconds to wait after a 429 (its Retry-After header), or undefined. */
    get retryAfterSeconds() {
        const value = Number(this.response.headers.get('retry-after'));
        return Number.isFinite(value) && value > 0 ? value : undefined;
    }
}
exports.MessApiError = MessApiError;
/**
 * The success body of an openapi-fetch result, or a MessApiError with the error body:
 * `const { expenses } = await unwrap(client.GET('/api/expenses'))`.
 */
async function unwrap(call) {
    const { data, error, response } = await call;
    if (response.ok)
        return data;
    const body = error && typeof error === 'object' && 'error' in error ? error : undefined;
    throw new MessApiError(response.status, body, response);
}
