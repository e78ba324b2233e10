import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, conflict, forbidden, notFound } from '../../common/errors/api-error';
import { Clock } from '../../common/time/clock';
import { actInMessWithin } from '../../database/database';
import { AuditTrail } from '../audit-trail';
import { MessDirectory } from '../messes';
import { UsersService } from '../users';
import {
  ALREADY_APPLIED,
  CANCELLED,
  CHOICE_NOT_FOUND,
  NOT_A_DINER,
  NOT_OPEN,
  takesChoices,
  WINDOW_NOT_FOUND,
  type WindowStatus,
  windowStatus,
} from './mess-windows';
import { TermsRepository } from './terms.repository';
import type { MessWindowChoiceRow, MessWindowRow } from './terms.schema';

export const MAX_PREFERENCES_DEFAULT = 3;

export interface NewWindow {
  term: string;
  opensAt: Date;
  closesAt: Date;
  effectiveFrom: string;
  /** Mess ids (resolved and checked by the request's field check); undefined: every mess. */
  messIds?: string[];
  maxPreferences?: number;
}

/** The term windows (extension 2.3): opening, listing and cancelling them, and the members' ranked choices. */
@Injectable()
export class MessWindowsService {
  constructor(
    private readonly repository: TermsRepository,
    private readonly directory: MessDirectory,
    private readonly users: UsersService,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
  ) {}

  async create(caller: CurrentMember, input: NewWindow): Promise<MessWindowRow> {
    const messIds = input.messIds ?? (await this.directory.all()).map((m) => m.id);
    if (messIds.length < 2)
      throw badRequest('Validation failed', [
        { field: 'messes', message: 'a window needs at least 2 messes (the deployment has fewer)' },
      ]);
    return this.repository.transaction(async (tx) => {
      const window = await this.repository.insertWindow(
        {
          term: input.term,
          opensAt: input.opensAt,
          closesAt: input.closesAt,
          effectiveFrom: input.effectiveFrom,
          messIds,
          maxPreferences: input.maxPreferences ?? MAX_PREFERENCES_DEFAULT,
          createdBy: caller.id,
        },
        tx,
      );
      await this.auditInEachMess(tx, window, caller.id, 'created', undefined, auditView(window));
      return window;
    });
  }

  /** Newest first; `status`: only those in it now. */
  async list(status?: WindowStatus): Promise<MessWindowRow[]> {
    const now = this.clock.now();
    const rows = await this.repository.listWindows();
    return status ? rows.filter((w) => windowStatus(w, now) === status) : rows;
  }

  async get(id: string): Promise<MessWindowRow> {
    const window = await this.repository.findWindow(id);
    if (!window) throw notFound(WINDOW_NOT_FOUND);
    return window;
  }

  /** Cancelled, with its choices and allocation kept for the record; 409 once its moves are made. */
  async cancel(caller: CurrentMember, id: string): Promise<MessWindowRow> {
    return this.repository.transaction(async (tx) => {
      const window = await this.repository.lockWindow(id, tx);
      if (!window) throw notFound(WINDOW_NOT_FOUND);
      if (window.appliedAt) throw conflict(ALREADY_APPLIED);
      if (window.cancelledAt) throw conflict(CANCELLED);
      const after = (await this.repository.updateWindow(id, { cancelledAt: this.clock.now() }, tx))!;
      await this.auditInEachMess(tx, after, caller.id, 'cancelled', auditView(window), auditView(after));
      return after;
    });
  }

  /**
   * Saves the caller's ranked choice over any earlier one (one row per member and window, an upsert): how full a
   * mess is plays no part until the lottery. `preferences`: `_id`s or slugs of the window's messes, best first.
   */
  async saveChoice(
    caller: CurrentMember,
    id: string,
    preferences: string[],
  ): Promise<{ window: MessWindowRow; choice: MessWindowChoiceRow }> {
    const window = await this.get(id);
    const now = this.clock.now();
    if (!takesChoices(window, now)) throw conflict(NOT_OPEN);
    await this.mayChoose(caller);
    const resolved: string[] = [];
    for (const ref of preferences) {
      const mess = await this.directory.find(ref);
      if (!mess || !window.messIds.includes(mess.id))
        throw badRequest('Validation failed', [
          { field: 'preferences', message: `preferences names ${ref}, which is not a mess of this window` },
        ]);
      if (resolved.includes(mess.id))
        throw badRequest('Validation failed', [
          { field: 'preferences', message: `preferences names ${ref} twice` },
        ]);
      resolved.push(mess.id);
    }
    if (resolved.length > window.maxPreferences)
      throw badRequest('Validation failed', [
        {
          field: 'preferences',
          message: `preferences must name 1 to ${window.maxPreferences} messes (this window's maxPreferences)`,
        },
      ]);
    return { window, choice: await this.repository.saveChoice(id, caller.id, resolved, now) };
  }

  async choice(caller: CurrentMember, id: string): Promise<MessWindowChoiceRow> {
    await this.get(id);
    const choice = await this.repository.findChoice(id, caller.id);
    if (!choice) throw notFound(CHOICE_NOT_FOUND);
    return choice;
  }

  /** Withdraws the caller's choice while the window is open; 404 when there is none. */
  async withdrawChoice(caller: CurrentMember, id: string): Promise<void> {
    const window = await this.get(id);
    if (!takesChoices(window, this.clock.now())) throw conflict(NOT_OPEN);
    if (!(await this.repository.deleteChoice(id, caller.id))) throw notFound(CHOICE_NOT_FOUND);
  }

  private async mayChoose(caller: CurrentMember): Promise<void> {
    const member = await this.users.findById(caller.id);
    if (!member || member.status !== 'approved' || !member.dines) throw forbidden(NOT_A_DINER);
  }

  /** The window's audit row in each of its messes (each mess's trail shows the windows that concern it). */
  async auditInEachMess(
    tx: Parameters<Parameters<TermsRepository['transaction']>[0]>[0],
    window: MessWindowRow,
    actorId: string | null,
    action: string,
    before: unknown,
    after: unknown,
  ): Promise<void> {
    for (const messId of window.messIds) {
      await actInMessWithin(tx, messId);
      await this.audit.record(tx, { actorId, action, entity: 'window', entityId: window.id, before, after });
    }
  }
}

/** What a window's audit row keeps of it. */
export const auditView = (w: MessWindowRow) => ({
  term: w.term,
  opensAt: w.opensAt.toISOString(),
  closesAt: w.closesAt.toISOString(),
  effectiveFrom: w.effectiveFrom,
  messes: w.messIds,
  maxPreferences: w.maxPreferences,
  seed: w.seed,
  cancelled: w.cancelledAt !== null,
});
