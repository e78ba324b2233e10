import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TEST_ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
export const TEST_AUTH_TOKEN = 'super-secret-auth-token-0123456789';
export const SANDBOX_NUMBER = '+14155238886';

export interface ProviderError {
  status: number;
  code: number;
  message: string;
}

/** The provider's answers for its common failures, as its Messages API sends them. */
export const ProviderErrors = {
  notJoinedSandbox: (to: string): ProviderError => ({
    status: 400,
    code: 63015,
    message: `Channel Sandbox can only send messages to phone numbers that have joined the Sandbox (${to})`,
  }),
  outsideWindow: (): ProviderError => ({
    status: 400,
    code: 63016,
    message: 'Failed to send freeform message because you are outside the allowed window.',
  }),
  invalidNumber: (to: string): ProviderError => ({
    status: 400,
    code: 21211,
    message: `The 'To' number ${to} is not a valid phone number.`,
  }),
  rateLimited: (): ProviderError => ({ status: 429, code: 20429, message: 'Too Many Requests' }),
  channelRateLimited: (): ProviderError => ({
    status: 429,
    code: 63018,
    message: 'Rate limit exceeded for Channel',
  }),
  accountDisabled: (): ProviderError => ({ status: 401, code: 20003, message: 'Authenticate' }),
  unavailable: (): ProviderError => ({ status: 503, code: 20500, message: 'Service Unavailable' }),
};

/**
 * Errors the real provider reports on the Message resource after accepting the message (201 `queued`), never on
 * the create call: the channel's and the sandbox's refusals.
 */
const ASYNC_CODES = new Set([63003, 63015, 63016, 63018, 63024]);

interface StoredMessage {
  sid: string;
  to: string;
  from: string;
  body: string;
  dateCreated: Date;
  /** Status reads still answered `queued`. */
  queuedReads: number;
  final: { status: 'delivered' } | { status: 'failed'; error: ProviderError };
}

export interface SentMessage {
  accountSid: string;
  to: string;
  from: string;
  body: string;
  authorization: { username: string; password: string };
}

/**
 * An HTTP server that answers like the messaging provider's Messages API:
 * `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded `To`, `From`, `Body`, basic auth; 201 with a
 * message `sid`, or the provider's error body `{code, message, more_info, status}`.
 */
export class MessagingProvider {
  /** Messages that reached (or will reach) the phone. */
  readonly sent: SentMessage[] = [];
  /** Every create call. */
  readonly requests: SentMessage[] = [];
  /** Every status read of a message (its sid). */
  readonly statusReads: string[] = [];
  private failures = new Map<string, ProviderError>();
  private failAll?: ProviderError;
  private pendingReads = new Map<string, number>();
  private delays = new Map<string, number>();
  private readonly messages = new Map<string, StoredMessage>();
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Messages to this E.164 number fail with `error` (until `reset`). */
  failFor(phone: string, error: ProviderError): void {
    this.failures.set(`whatsapp:${phone}`, error);
  }

  failEverything(error: ProviderError | undefined): void {
    this.failAll = error;
  }

  /** The next messages to this number stay `queued` for `reads` status reads before reaching their final status. */
  queuedFor(phone: string, reads: number): void {
    this.pendingReads.set(`whatsapp:${phone}`, reads);
  }

  /** Create calls for this number answer after `ms` (the message is stored first, as a slow provider would). */
  delayFor(phone: string, ms: number): void {
    this.delays.set(`whatsapp:${phone}`, ms);
  }

  reset(): void {
    this.failures.clear();
    this.pendingReads.clear();
    this.delays.clear();
    this.failAll = undefined;
  }

  sentTo(phone: string): SentMessage[] {
    return this.sent.filter((m) => m.to === `whatsapp:${phone}`);
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      MSG_ACCOUNT_SID: TEST_ACCOUNT_SID,
      MSG_AUTH_TOKEN: TEST_AUTH_TOKEN,
      MSG_PHONE_NUMBER: SANDBOX_NUMBER,
      MSG_API_BASE_URL: this.baseUrl,
      MSG_TIMEOUT_MS: '2000',
      ...extra,
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://provider');
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const [username, password] = Buffer.from(
      (req.headers.authorization ?? '').replace(/^Basic /, ''),
      'base64',
    )
      .toString('utf8')
      .split(':');
    const errorBody = (error: ProviderError) => ({
      code: error.code,
      message: error.message,
      more_info: `https://www.twilio.com/docs/errors/${error.code}`,
      status: error.status,
    });
    const one = /^\/2010-04-01\/Accounts\/(AC\w+)\/Messages\/(SM\w+)\.json$/.exec(url.pathname);
    const list = /^\/2010-04-01\/Accounts\/(AC\w+)\/Messages\.json$/.exec(url.pathname);
    const account = (one ?? list)?.[1];
    if (!account) return reply(404, { code: 20404, message: 'Not found', status: 404 });
    if (username !== account || !password) {
      const error = ProviderErrors.accountDisabled();
      return reply(error.status, errorBody(error));
    }

    if (req.method === 'GET' && one) {
      const stored = this.messages.get(one[2]);
      if (!stored) return reply(404, { code: 20404, message: 'Not found', status: 404 });
      this.statusReads.push(stored.sid);
      return reply(200, this.resource(account, stored, true));
    }
    if (req.method === 'GET' && list) {
      const to = url.searchParams.get('To');
      const after = url.searchParams.get('DateSent>');
      const found = [...this.messages.values()]
        .filter((m) => (!to || m.to === to) && (!after || m.dateCreated >= new Date(after)))
        .reverse()
        .map((m) => this.resource(account, m, false));
      return reply(200, {
        messages: found,
        end: Math.max(0, found.length - 1),
        first_page_uri: url.pathname,
        next_page_uri: null,
        page: 0,
        page_size: 50,
        previous_page_uri: null,
        start: 0,
        uri: url.pathname,
      });
    }
    if (req.method !== 'POST' || !list) return reply(404, { code: 20404, message: 'Not found', status: 404 });

    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const message: SentMessage = {
      accountSid: account,
      to: form.get('To') ?? '',
      from: form.get('From') ?? '',
      body: form.get('Body') ?? '',
      authorization: { username, password },
    };
    this.requests.push(message);
    const error = this.failAll ?? this.failures.get(message.to);
    if (error && !ASYNC_CODES.has(error.code)) return reply(error.status, errorBody(error));
    const sid = `SM${randomBytes(16).toString('hex')}`;
    const stored: StoredMessage = {
      sid,
      to: message.to,
      from: message.from,
      body: message.body,
      dateCreated: new Date(),
      queuedReads: this.pendingReads.get(message.to) ?? 0,
      final: error ? { status: 'failed', error } : { status: 'delivered' },
    };
    this.messages.set(sid, stored);
    if (!error) this.sent.push(message);
    const delay = this.delays.get(message.to);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    reply(201, this.resource(account, stored, false));
  }

  /** The Message resource as the provider shows it; a status read moves a queued message on. */
  private resource(account: string, m: StoredMessage, read: boolean) {
    let status: string = 'queued';
    let error: ProviderError | undefined;
    if (read || m.queuedReads < 0) {
      if (m.queuedReads > 0) m.queuedReads -= 1;
      else {
        m.queuedReads = -1;
        status = m.final.status;
        if (m.final.status === 'failed') error = m.final.error;
      }
    }
    return {
      sid: m.sid,
      account_sid: account,
      to: m.to,
      from: m.from,
      body: m.body,
      status,
      error_code: error ? error.code : null,
      error_message: error ? error.message : null,
      num_segments: '1',
      direction: 'outbound-api',
      date_created: m.dateCreated.toUTCString(),
      date_sent: m.dateCreated.toUTCString(),
      uri: `/2010-04-01/Accounts/${account}/Messages/${m.sid}.json`,
    };
  }
}
