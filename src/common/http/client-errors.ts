import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

const logger = new Logger('HttpServer');

/** How long a connection answered and closing may still send before it is cut (a lingering close). */
const LINGER_MS = 5_000;
/** And how much: a client still sending after this is cut too. */
const LINGER_BYTES = 64 * 1024 * 1024;

/** What Node's HTTP parser refuses, in the service's words. */
function answerFor(code: string | undefined): { status: number; reason: string; error: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        error: 'Request header fields are too large',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', error: 'The request took too long to arrive' };
    default:
      return { status: 400, reason: 'Bad Request', error: 'Malformed HTTP request' };
  }
}

/**
 * Fastify's `clientErrorHandler`: an error Node's HTTP parser raises before there is a request (headers over the
 * limit, a malformed request line, a request that did not arrive in time) is answered in the service's error format
 * with a request id, and with `Connection: close` since the connection ends here. Fastify's default wrote its own
 * body and no `Connection: close`, so a pooling client (undici, a browser, the generated client) sent its next,
 * innocent request on a socket about to be destroyed. The socket is ended, not destroyed, so the client reads the
 * answer; what it still sends is read and dropped until it closes (at most LINGER_MS).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, reason, error: text } = answerFor(error.code);
  const requestId = randomUUID();
  logger.debug({ reqId: requestId, status, code: error.code }, 'Refused by the HTTP parser');
  if (socket.writable) {
    const body = JSON.stringify({ success: false, error: text });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n' +
        `X-Request-Id: ${requestId}\r\n` +
        '\r\n' +
        body,
    );
  }
  linger(socket);
}

/**
 * A lingering close (what HTTP/1.1 servers do when they answer before the request's body has arrived: RFC 9112
 * §9.6): after the answer, the connection's writing side is closed, and what the client still sends is read and
 * dropped until it stops (at most LINGER_MS or LINGER_BYTES). Closing the socket at once made the kernel reset a
 * connection that was still receiving, and a client writing its body (a 2 MB registration) got EPIPE or
 * ECONNRESET instead of reading its 413.
 */
function linger(socket: Socket): void {
  let read = 0;
  const cut = () => socket.destroy();
  socket.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > LINGER_BYTES) cut();
  });
  socket.once('end', cut);
  socket.setTimeout(LINGER_MS, cut);
  socket.resume();
}

/**
 * For an answer sent with `Connection: close` before the request's body was read (a body over the limit): the rest
 * of the body is dropped as it comes, and when Node would close the socket after the answer (`destroySoon`), the
 * connection lingers instead.
 */
export function lingerAfterAnswer(request: IncomingMessage): void {
  const socket = request.socket as Socket | null;
  if (!socket || socket.destroyed || request.complete) return;
  request.resume();
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    linger(this);
  };
}
