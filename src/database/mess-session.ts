import { APP_ROLE, currentMessId, pointAtMessSql } from '../common/tenancy/mess-scope';

/**
 * What a connection's session is set to: the role its statements run under and the mess row-level security shows
 * them (`app.mess`). The database layer brings a connection to what the running code needs before each statement
 * (embedded) or checkout (server); on a connection already there, that costs nothing.
 */
export class MessSession {
  /** `app`: the service's role, one mess; `owner`: the connecting user (migrations, the job queue's own tables). */
  private role: 'app' | 'owner' = 'owner';
  private mess: string | null = null;

  /** The statement (one simple query) that brings the session to the running code's mess, or null when it is there. */
  toCurrentMess(): string | null {
    const mess = currentMessId();
    if (this.role === 'app' && this.mess === mess) return null;
    const statements = this.role === 'app' ? [] : [`set role ${APP_ROLE}`];
    statements.push(pointAtMessSql(mess));
    this.role = 'app';
    this.mess = mess;
    return statements.join('; ');
  }

  /** The statement that gives the session back to the connecting user, or null when it has it. */
  toOwner(): string | null {
    if (this.role === 'owner') return null;
    this.role = 'owner';
    return 'reset role';
  }

  /** After a failed switch the session's state is unknown: the next statement sets it again. */
  forget(): void {
    this.role = 'owner';
    this.mess = null;
  }
}

/** One at a time, in order of arrival (the embedded engine has one session, shared by the service and its queue). */
export class SessionLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
