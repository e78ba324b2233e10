import { normalizeEmail } from '../../common/identity/email';
import { Injectable, Logger } from '@nestjs/common';
import type { OAuth2Client } from 'google-auth-library';
import type * as GoogleAuth from 'google-auth-library';
import { AppConfig } from '../../config/app-config';
import { optionalPackage } from '../../common/runtime/optional-package';

export interface VerifiedIdentity {
  idpId: string;
  email: string;
  emailVerified: boolean;
  fullName: string;
  hostedDomain?: string;
}

export class IdpNotConfiguredError extends Error {}
export class IdpTokenRejectedError extends Error {}

/**
 * Verifies identity-provider (Google) ID tokens: signature against the provider's certificates, audience
 * IDP_CLIENT_ID, issuer and expiry. IDP_CERTS_URL points it at other certificates (tests, staging).
 */
@Injectable()
export class IdpVerifier {
  private readonly logger = new Logger(IdpVerifier.name);
  private readonly client?: OAuth2Client;

  constructor(private readonly config: AppConfig) {
    const { clientId, certsUrl } = config.idp;
    if (clientId) {
      const { OAuth2Client } = optionalPackage<typeof GoogleAuth>('google-auth-library');
      this.client = new OAuth2Client({
        clientId,
        ...(certsUrl ? { endpoints: { oauth2FederatedSignonPemCertsUrl: certsUrl } } : {}),
      });
    }
  }

  async verify(idToken: string): Promise<VerifiedIdentity> {
    if (!this.client) throw new IdpNotConfiguredError('Identity-provider login is not configured');
    let payload;
    try {
      const ticket = await this.client.verifyIdToken({ idToken, audience: this.config.idp.clientId });
      payload = ticket.getPayload();
    } catch (error) {
      this.logger.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'ID token rejected',
      );
      throw new IdpTokenRejectedError('Invalid identity-provider token');
    }
    if (!payload?.sub || !payload.email)
      throw new IdpTokenRejectedError('The ID token has no subject or email');
    const allowed = this.config.idp.allowedDomain;
    if (allowed && payload.hd !== allowed) {
      throw new IdpTokenRejectedError(`Only accounts of ${allowed} may sign in`);
    }
    return {
      idpId: payload.sub,
      email: normalizeEmail(payload.email),
      emailVerified: payload.email_verified === true,
      fullName: payload.name ?? payload.email,
      hostedDomain: payload.hd,
    };
  }
}
