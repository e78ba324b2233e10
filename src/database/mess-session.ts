import { APP_ROLE, isMessId, MESS_SETTING, messIdIfAny } from '../common/tenancy/mess-scope';

/**
 * The statements that put a session (or, with `local`, one transaction) where the running code needs it: the
 * service's role, and `app.mess` set to the running code's mess, or to nothing outside one, so that a statement on a
 * mess table there fails (the policies read the setting with no fallback) instead of acting in some mess.
 */
export function messSettingsSql(local: boolean): string {
  const mess = messIdIfAny() ?? '';
  if (mess && !isMessId(mess)) throw new Error(`not a mess id: ${mess}`);
  return `${local ? 'set local' : 'set'} role ${APP_ROLE}; select set_config('${MESS_SETTING}', '${mess}', ${local})`;
}

/** A statement's settings, sent in front of it (InMessQuery): under `name` when the pool mode keeps names. */
export interface MessSettings {
  text: string;
  name?: string;
  values: string[];
}

/** The settings statement's text: the role and the mess, for the transaction (`local`) or the session. */
const settingsText = (local: boolean) =>
  `select set_config('role', $1, ${local}), set_config('${MESS_SETTING}', $2, ${local})`;

/**
 * The same as a query sent in front of a statement before the same Sync (see InMessQuery): `set_config` of the role
 * and the mess, for that statement's implicit transaction (`local`) or for the session; prepared once per connection
 * under a name where the pool mode keeps names (`named`), unnamed otherwise.
 */
export function messSettingsQuery(options: { local: boolean; named: boolean }): MessSettings {
  const mess = messIdIfAny() ?? '';
  if (mess && !isMessId(mess)) throw new Error(`not a mess id: ${mess}`);
  return {
    text: settingsText(options.local),
    name: options.named ? (options.local ? 'mess_settings_local' : 'mess_settings') : undefined,
    values: [APP_ROLE, mess],
  };
}

/**
 * What a connection's session is set to: the role its statements run under and the mess row-level security shows
 * them (`app.mess`). The database layer brings a connection to what the running code needs before each statement
 * (embedded) or checkout (server, session pool mode); on a connection already there, that costs nothing.
 */
export class MessSession {
  /** `app`: the service's role; `owner`: the connecting user (migrations, the job queue's own tables). */
  private role: 'app' | 'owner' = 'owner';
  /** The mess `app.mess` names ('' for none); null when unknown. */
  private mess: string | null = null;

  /** The statement (one simple query) that brings the session to the running code's mess, or null when it is there. */
  toCurrentMess(): string | null {
    return this.movesToCurrentMess() ? messSettingsSql(false) : null;
  }

  /** Whether the session must be set to the running code's mess (it is taken as set from here on). */
  movesToCurrentMess(): boolean {
    const mess = messIdIfAny() ?? '';
    if (this.role === 'app' && this.mess === mess) return false;
    this.role = 'app';
    this.mess = mess;
    return true;
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
