import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { createSecretKey } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { AuditTrailModule } from '../audit-trail';
import { UsersModule } from '../users';
import { PrivacyNoticeModule } from '../privacy-notice';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { IdpVerifier } from './idp-verifier';
import { PasswordResetService } from './password-reset.service';
import { PasswordResetsRepository } from './password-resets.repository';
import { RevokedTokensRepository } from './revoked-tokens.repository';
import { TokenHolderCache } from './token-holder-cache';
import { TokenService } from './token.service';

@Module({
  imports: [
    PrivacyNoticeModule,
    UsersModule,
    AuditTrailModule,
    JwtModule.registerAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        // A KeyObject made once, not the string: given a string, jsonwebtoken first tries to parse it as a PEM public
        // key (createPublicKey, which throws) and then wraps it with createSecretKey, on every sign and verify:
        // ~0.1 ms of an authenticated request. (@nestjs/jwt passes the secret through; its type says string.)
        secret: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')) as unknown as string,
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [
    AuthService,
    PasswordResetService,
    PasswordResetsRepository,
    TokenService,
    TokenHolderCache,
    RevokedTokensRepository,
    IdpVerifier,
    AuthGuard,
  ],
  exports: [TokenService, AuthGuard],
})
export class AuthModule {}
