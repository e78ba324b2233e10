import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { RouteMetadata } from '../../common/http/route-metadata';
import type { FastifyRequest } from 'fastify';
import { type CurrentMember, OWN_RECORDS_ONLY } from '../../common/auth/auth.decorators';
import { mayActIn } from '../../common/auth/permissions';
import { requestContext } from '../../common/context/request-context';
import { badRequest, GuardError, notFound } from '../../common/errors/api-error';
import { queryProblems } from '../../common/http/request-parsing';
import { FIRST_MESS_ID } from '../../common/tenancy/mess-scope';
import { MessDirectory } from './mess-directory';
import { PastMesses } from './past-messes';

export const MESS_NOT_FOUND = 'Mess not found';

/**
 * The one place that decides which mess a request acts in (extension 2.2): the `mess` query parameter (an `_id` or
 * a slug), else the caller's own mess, else (no caller) the first mess; and whether the caller may act there
 * (`mayActIn`, the permissions table): in a mess other than their own, a member (not an admin) only reads their own
 * records, on the routes marked `@OwnRecordsInAnyMess()`, and only of a mess they belonged to (`PastMesses`, asked
 * by those requests alone). The decision goes into the request's context, where the database layer reads it for
 * every statement (and `can` for what the caller may do there); the parameter is taken out of the query, so no
 * route's validation sees it. The auth guard runs it once it knows the caller, before it checks the route's
 * permission.
 */
@Injectable()
export class MessGuard implements CanActivate {
  constructor(
    private readonly reflector: RouteMetadata,
    private readonly directory: MessDirectory,
    private readonly pastMesses: PastMesses,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { member?: CurrentMember }>();
    return this.decide(context, request.member);
  }

  /**
   * `member`: the caller. On a public route (`open`) it is the holder of a valid token if one came with the request:
   * their own mess is the default there too, and since a public route is open to every mess nothing is refused.
   */
  async decide(context: ExecutionContext, member: CurrentMember | undefined, open = false): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { query: Record<string, unknown> }>();
    // A `mess` the query parser refused (bad percent-encoding) names no mess: acting in the caller's own instead
    // would let a request meant for another mess read or write this one.
    const malformed = queryProblems(request.query).filter((problem) => problem.field === 'mess');
    if (malformed.length) throw badRequest('Validation failed', malformed);
    const named = takeMessParameter(request);
    let messId = member?.messId ?? FIRST_MESS_ID;
    if (named !== undefined) {
      const mess = typeof named === 'string' && named ? await this.directory.find(named) : undefined;
      if (!mess) throw notFound(MESS_NOT_FOUND);
      messId = mess.id;
    }
    if (member && !open) {
      const ownRecordsOnly = Boolean(
        this.reflector.getAllAndOverride<boolean>(OWN_RECORDS_ONLY, [
          context.getHandler(),
          context.getClass(),
        ]),
      );
      // Only a request naming another mess on an own-record route asks whether the member belonged there.
      const belongedTo = (mess: string) => this.pastMesses.belongedTo(member.id, mess);
      if (!(await mayActIn(member, messId, { ownRecordsOnly }, belongedTo))) {
        throw new GuardError(403, 'Forbidden');
      }
    }
    const current = requestContext.current();
    if (current) {
      current.messId = messId;
      current.messNamed = named !== undefined;
    }
    return true;
  }
}

/** The `mess` query parameter, removed from the query (undefined when absent; repeated: not a string). */
function takeMessParameter(request: { query?: unknown }): unknown {
  const query = request.query;
  if (!query || typeof query !== 'object' || !('mess' in query)) return undefined;
  const value = (query as Record<string, unknown>).mess;
  delete (query as Record<string, unknown>).mess;
  return value;
}
