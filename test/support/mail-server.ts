import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** Decoded headers, lower-cased names. */
  headers: Record<string, string>;
  subject: string;
  html: string;
  text: string;
  raw: string;
  auth?: { username: string; password: string };
}

/**
 * A real SMTP server (`smtp-server`) on a local port that records every message it accepts, for nodemailer to
 * talk to with SMTP_HOST/SMTP_PORT/SMTP_SECURE=false. `stop()` and `start()` again on the same port simulate an
 * outage.
 */
export class MailServer {
  readonly received: ReceivedMail[] = [];
  private server?: SMTPServer;
  private waiters: { count: number; resolve: () => void }[] = [];
  port = 0;

  async start(port = this.port): Promise<this> {
    let auth: ReceivedMail['auth'];
    this.server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: true,
      logger: false,
      onAuth: (credentials, _session, callback) => {
        auth = { username: credentials.username ?? '', password: credentials.password ?? '' };
        callback(null, { user: credentials.username });
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.received.push({
            ...parseMessage(raw),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            auth,
          });
          this.notify();
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => {
        this.server!.off('error', reject);
        resolve();
      });
    });
    // A client that vanishes mid-connection (a replica killed with its pooled SMTP connections open) ends that
    // connection, as on any mail server; it is not an error of the test run. (Mail that never arrived fails the test
    // waiting for it.)
    this.server.on('error', () => undefined);
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Messages to one address. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((m) => m.to.includes(address));
  }

  /** Resolves once `count` messages in all have arrived. */
  waitFor(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(this.port),
      SMTP_SECURE: 'false',
      SMTP_EMAIL: 'mess.office@gmail.com',
      SMTP_PASSWORD: 'abcd efgh ijkl mnop',
      SMTP_TIMEOUT_MS: '2000',
      ...extra,
    };
  }

  private notify(): void {
    const ready = this.waiters.filter((w) => this.received.length >= w.count);
    this.waiters = this.waiters.filter((w) => this.received.length < w.count);
    ready.forEach((w) => w.resolve());
  }
}

/** Just enough MIME to read what nodemailer sends: headers, RFC 2047 words, multipart, QP and base64 bodies. */
function parseMessage(raw: string): Pick<ReceivedMail, 'headers' | 'subject' | 'html' | 'text'> {
  const { headers, body } = splitPart(raw);
  const parts: { type: string; content: string }[] = [];
  collect(headers, body, parts);
  return {
    headers,
    subject: decodeWords(headers.subject ?? ''),
    html: parts.find((p) => p.type === 'text/html')?.content ?? '',
    text: parts.find((p) => p.type === 'text/plain')?.content ?? '',
  };
}

function splitPart(raw: string): { headers: Record<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const body = end < 0 ? '' : raw.slice(end + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function collect(
  headers: Record<string, string>,
  body: string,
  out: { type: string; content: string }[],
): void {
  const contentType = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (contentType.toLowerCase().startsWith('multipart/') && boundary) {
    for (const section of body.split(`--${boundary}`).slice(1)) {
      if (section.startsWith('--')) break;
      const part = splitPart(section.replace(/^\r\n/, ''));
      collect(part.headers, part.body, out);
    }
    return;
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const bytes =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : Buffer.from(body, 'utf8');
  out.push({
    type: contentType.split(';')[0].trim().toLowerCase(),
    content: bytes.toString('utf8').replace(/\r\n/g, '\n').trimEnd(),
  });
}

function decodeQuotedPrintable(text: string): Buffer {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i += 1) {
    if (joined[i] === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(joined[i], 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')).toString('utf8'),
    );
}
