import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { TestApp } from '../support/app';

/**
 * A body over BODY_LIMIT_BYTES is answered 413 in our format, and the client can read that answer whatever the
 * body's size and pace: the server answers as soon as it knows (the declared length, or the bytes read so far), then
 * keeps reading what the client still sends (up to a bound) before it closes — a lingering close. Closing at once
 * would reset a connection the client is still writing to, and the client would see EPIPE/ECONNRESET instead of 413.
 */
describe('Oversized bodies', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await TestApp.start({ BODY_LIMIT_BYTES: '102400' });
    await t.app.listen(0, '127.0.0.1');
    port = Number(new URL(await t.app.getUrl()).port);
  });
  afterAll(() => t?.close());

  /** POSTs `size` bytes of a JSON body, in `chunk`-sized writes `pauseMs` apart; the status and body it reads. */
  const send = (size: number, chunk: number, pauseMs: number, chunked = false) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/auth/register',
          headers: {
            'content-type': 'application/json',
            ...(chunked ? {} : { 'content-length': String(size) }),
          },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      let sent = 0;
      const piece = Buffer.alloc(chunk, 0x20);
      const writeMore = () => {
        while (sent < size) {
          const n = Math.min(chunk, size - sent);
          sent += n;
          const more = req.write(n === chunk ? piece : piece.subarray(0, n));
          if (pauseMs > 0) return void setTimeout(writeMore, pauseMs);
          if (!more) return void req.once('drain', writeMore);
        }
        req.end();
      };
      writeMore();
    });

  const tooLarge = {
    status: 413,
    body: JSON.stringify({ success: false, error: 'Request body is too large' }),
  };

  it.each([
    ['2 MB at once', 2 * 1024 * 1024, 64 * 1024, 0, false],
    ['20 MB at once', 20 * 1024 * 1024, 256 * 1024, 0, false],
    ['2 MB slowly', 2 * 1024 * 1024, 64 * 1024, 5, false],
    ['2 MB chunked (no length)', 2 * 1024 * 1024, 64 * 1024, 0, true],
  ])('%s: the client reads its 413, five times in a row', async (_name, size, chunk, pauseMs, chunked) => {
    for (let i = 0; i < 5; i += 1) {
      await expect(send(size, chunk, pauseMs, chunked)).resolves.toEqual(tooLarge);
    }
  });

  it.each([
    ['2 MB', 2 * 1024 * 1024],
    ['20 MB', 20 * 1024 * 1024],
  ])('fetch of %s: the 413 is read, twenty times in a row', async (_name, size) => {
    const body = JSON.stringify({ email: 'big@test.local', fullName: 'x'.repeat(size) });
    const seen = new Map<string, number>();
    for (let i = 0; i < 20; i += 1) {
      let key: string;
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        key = `${res.status} ${await res.text()}`;
      } catch (error) {
        key = `failed: ${String((error as { cause?: unknown }).cause ?? error)}`;
      }
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(seen)).toEqual({ [`413 ${tooLarge.body}`]: 20 });
  });

  it('a client that writes its whole 20 MB body before it reads gets no reset, then reads the 413', async () => {
    const size = 20 * 1024 * 1024;
    const outcome = await new Promise<{ sent: number; answer: string; error?: string }>((resolve) => {
      let answer = '';
      let sent = 0;
      // allowHalfOpen: the client keeps writing after the server has finished its answer, as a busy client does.
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
        socket.write(
          'POST /api/auth/register HTTP/1.1\r\nHost: mess\r\nContent-Type: application/json\r\n' +
            `Content-Length: ${size}\r\n\r\n`,
        );
        const piece = Buffer.alloc(64 * 1024, 0x20);
        const pump = (): void => {
          while (sent < size) {
            sent += piece.length;
            if (!socket.write(piece)) return void socket.once('drain', pump);
          }
          socket.end();
        };
        pump();
      });
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      socket.on('error', (e) => resolve({ sent, answer, error: String(e) }));
      socket.on('close', () => resolve({ sent, answer }));
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome.sent).toBe(size);
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(outcome.answer.endsWith(tooLarge.body)).toBe(true);
  });
});
