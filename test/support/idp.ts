import { createSign, generateKeyPairSync, KeyObject } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A stand-in identity provider that is real where it matters: an RSA key pair, a certificate endpoint served over
 * HTTP the way the provider serves it ({kid: PEM}), and RS256 ID tokens signed with the private key.
 */
export class LocalIdentityProvider {
  readonly clientId = 'mess-test-client.apps.example';
  private readonly privateKey: KeyObject;
  private readonly publicPem: string;
  private server?: Server;
  readonly kid = 'test-key-1';
  certsUrl = '';

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = privateKey;
    this.publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' });
      res.end(JSON.stringify({ [this.kid]: this.publicPem }));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.certsUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/oauth2/v1/certs`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** An ID token as the provider would issue it; override any claim. */
  idToken(claims: Record<string, unknown> = {}, options: { key?: KeyObject; kid?: string } = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: 'https://accounts.google.com',
      aud: this.clientId,
      sub: '109876543210987654321',
      email: 'meera@college.edu',
      email_verified: true,
      name: 'Meera Iyer',
      hd: 'college.edu',
      iat: now,
      exp: now + 3600,
      ...claims,
    };
    const header = { alg: 'RS256', typ: 'JWT', kid: options.kid ?? this.kid };
    const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const unsigned = `${enc(header)}.${enc(payload)}`;
    const signature = createSign('RSA-SHA256')
      .update(unsigned)
      .sign(options.key ?? this.privateKey)
      .toString('base64url');
    return `${unsigned}.${signature}`;
  }
}
