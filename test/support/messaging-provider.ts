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
  readonly sent: SentMessage[] = [];
  readonly requests: SentMessage[] = [];
  private failures = new Map<string, ProviderError>();
  private failAll?: ProviderError;
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

  reset(): void {
    this.failures.clear();
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
    const match = /^\/2010-04-01\/Accounts\/(AC\w+)\/Messages\.json$/.exec(req.url ?? '');
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || !match)
      return reply(404, { code: 20404, message: 'Not found', status: 404 });
    const [username, password] = Buffer.from(
      (req.headers.authorization ?? '').replace(/^Basic /, ''),
      'base64',
    )
      .toString('utf8')
      .split(':');
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const message: SentMessage = {
      accountSid: match[1],
      to: form.get('To') ?? '',
      from: form.get('From') ?? '',
      body: form.get('Body') ?? '',
      authorization: { username, password },
    };
    this.requests.push(message);
    const error =
      username !== match[1] || !password
        ? ProviderErrors.accountDisabled()
        : (this.failAll ?? this.failures.get(message.to));
    if (error) {
      return reply(error.status, {
        code: error.code,
        message: error.message,
        more_info: `https://www.twilio.com/docs/errors/${error.code}`,
        status: error.status,
      });
    }
    this.sent.push(message);
    const sid = `SM${randomBytes(16).toString('hex')}`;
    reply(201, {
      sid,
      account_sid: match[1],
      to: message.to,
      from: message.from,
      body: message.body,
      status: 'queued',
      num_segments: '1',
      direction: 'outbound-api',
      date_created: new Date().toUTCString(),
      uri: `/2010-04-01/Accounts/${match[1]}/Messages/${sid}.json`,
    });
  }
}
