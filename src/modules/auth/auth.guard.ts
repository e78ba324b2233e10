import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type CurrentMember, IS_PUBLIC, PERMISSION } from '../../common/auth/auth.decorators';
import { can, type Permission } from '../../common/auth/permissions';
import { GuardError } from '../../common/errors/api-error';
import { RouteMetadata } from '../../common/http/route-metadata';
import { MessGuard } from '../messes';
import { TokenService } from './token.service';

/**
 * Deny by default: every route needs a valid bearer token unless marked @Public(), and a route with @Allow()
 * also needs a role that holds that permission (`permissions.ts`). Role and status are read from the database on
 * each request, so a change takes effect at once.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: RouteMetadata,
    private readonly tokens: TokenService,
    private readonly mess: MessGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    // Which mess the request acts in is decided once the caller is known (MessGuard), before any permission.
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) {
      // A public route acts in the caller's own mess when a valid token comes with it, else in the first mess.
      const request = context.switchToHttp().getRequest<FastifyRequest>();
      const token = bearerToken(request.headers.authorization);
      const holder = token ? await this.tokens.authenticate(token).catch(() => undefined) : undefined;
      return this.mess.decide(context, holder, true);
    }

    const request = context.switchToHttp().getRequest<FastifyRequest & { member?: CurrentMember }>();
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new GuardError(401, 'No token');
    const member = await this.tokens.authenticate(token);
    if (!member) throw new GuardError(401, 'Invalid token');
    request.member = member;
    await this.mess.canActivate(context);

    const permission = this.reflector.getAllAndOverride<Permission | undefined>(PERMISSION, targets);
    if (permission && !can(member, permission)) {
      throw new GuardError(403, 'Forbidden');
    }
    return true;
  }
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
