/**
 * The domain events: one map from each event's name to its payload. A durable event (`DURABLE_EVENTS`: one that
 * promises a message) is written in the transaction of its change (`DomainEventBus.publishWithin(tx, …)`, the
 * outbox) and handed to its listeners after the commit, at least once; any other is published in-process after the
 * write has committed (`DomainEventBus.publish`). Both are listened to with `@OnDomainEvent(name)`; both accept only a
 * name of this map with its own payload, so renaming an event or changing a payload fails the type-check wherever
 * it is published or heard. Payloads carry what a listener needs to decide without reading the publisher's tables;
 * each module builds its payloads beside its own code (e.g. `attendance-events.ts`).
 */
export interface EventPayloads {
  /** An expense was recorded: its month's totals changed. */
  'expense.recorded': ExpenseEvent;
  /** An expense was changed (perhaps moved to another month). */
  'expense.changed': ExpenseEvent;
  /** An expense was deleted. */
  'expense.deleted': ExpenseEvent;
  /** A mark was made or changed its status: one per mark, a bulk request's too. */
  'attendance.marked': AttendanceEvent;
  /** After the per-mark events of one bulk request: the whole batch of one meal slot, for listeners that summarise. */
  'attendance.marked-in-bulk': AttendanceBulkEvent;
  /**
   * Marks of one meal slot were made or changed after its meal ended (DISCREPANCY_ALERT): written in the marks'
   * transaction, only for such marks (an ordinary mark writes no outbox row).
   */
  'attendance.discrepancy': AttendanceDiscrepancyEvent;
  /** A menu was published for a meal slot. */
  'meal.published': MealEvent;
  /** A published menu was changed. */
  'meal.changed': MealEvent;
  /** A published menu was withdrawn. */
  'meal.deleted': MealEvent;
  /** Submitted or edited. */
  'feedback.submitted': FeedbackEvent;
  /**
   * A member's approval status, role, dining or mess changed, or they were erased (who counts as an approved member
   * or a diner).
   */
  'member.changed': MemberEvent;
  /** Any write of a member's row (also name, password, role, status): who a token names must be read again. */
  'member.updated': MemberUpdatedEvent;
  /** A payment was recorded on a member's account. */
  'account.payment-recorded': PaymentEvent;
  /** Many payments recorded at once (a bank statement's): one event, so their receipts are queued in batches. */
  'account.payments-recorded': { payments: PaymentEvent[] };
  /** A leave was decided (approved or rejected by a manager, or approved at once) or cancelled. */
  'leave.decided': LeaveEvent;
  /** An extra was recorded for a member: its month's bill changed. */
  'extra.recorded': ExtraEvent;
  /** An extra was deleted: its month's bill changed. */
  'extra.deleted': ExtraEvent;
  /** A password-reset link was made for a member (asked for, or sent by an admin): it is to be mailed. */
  'auth.password-reset-requested': PasswordResetEvent;
  /** A term window's lottery ran: the results of the members of one mess (the mess they were in at the close). */
  'mess-window.allocated': MessAllocatedEvent;
}

/** Every event is about one mess and names it: a listener runs in that mess (`@OnDomainEvent` enters it). */
export interface InMess {
  messId: string;
}

export type EventMap = { [K in keyof EventPayloads]: EventPayloads[K] & InMess };

export type EventName = keyof EventMap;

/**
 * The events that promise a message (their listeners create notifications): written with their change into the
 * outbox and delivered from there at least once, never lost after the commit (decision 0005). Their listeners must
 * be idempotent (dedupe keys) and return their work's promise: the relay awaits it and hands the event on again
 * until it resolves.
 */
export const DURABLE_EVENTS = [
  'expense.recorded',
  'expense.changed',
  'meal.published',
  'meal.changed',
  'meal.deleted',
  'account.payment-recorded',
  'account.payments-recorded',
  'leave.decided',
  'attendance.discrepancy',
  'auth.password-reset-requested',
  'mess-window.allocated',
] as const satisfies readonly EventName[];

export type DurableEventName = (typeof DURABLE_EVENTS)[number];

export const isDurableEvent = (name: string): name is DurableEventName =>
  (DURABLE_EVENTS as readonly string[]).includes(name);

export interface ExpenseEvent {
  expenseId: string;
  /** `YYYY-MM` months whose totals changed (two when an update moved the expense to another month). */
  months: string[];
  date: string;
  category: string;
  amountPaise: number;
  recordedBy: string;
  actorId: string;
}

export interface AttendanceEvent {
  attendanceId: string;
  userId: string;
  date: string;
  mealType: string;
  status: 'present' | 'absent';
  /** Undefined when the mark was created. */
  previousStatus?: 'present' | 'absent';
  /** Who marked: the member, or a manager/admin marking for them. */
  actorId: string;
  month: string;
  /** When this status was set (ISO): a version that grows with every change of the mark. */
  markedAt?: string;
  /** Part of a bulk request; the same marks follow as one AttendanceMarkedInBulk event. */
  inBulk?: boolean;
  /**
   * Written after its meal ended (decided in the write's transaction, with its audit): its DISCREPANCY_ALERT is the
   * durable 'attendance.discrepancy' written with it, not this event's.
   */
  afterMeal?: boolean;
}

export interface AttendanceBulkEvent {
  date: string;
  mealType: string;
  actorId: string;
  /** When the batch was written (ISO), the same for all its marks. */
  markedAt: string;
  marks: AttendanceEvent[];
}

/**
 * The marks of one write (one mark, or a bulk request's) made or changed after their meal ended, as the
 * 'attendance.marked' events of the write carry them: one DISCREPANCY_ALERT per manager, keyed as that alert is.
 */
export interface AttendanceDiscrepancyEvent extends AttendanceBulkEvent {
  reason: 'after-meal';
}

export interface MealEvent {
  mealId: string;
  date: string;
  mealType: string;
  dishes: string[];
  actorId: string;
  /** The menu's updatedAt (ISO): a version that grows with every change. */
  updatedAt?: string;
}

export interface FeedbackEvent {
  feedbackId: string;
  userId: string;
  date: string;
  mealType: string;
  rating: number;
}

export interface MemberEvent {
  userId: string;
  change: 'approved' | 'rejected' | 'role' | 'dines' | 'moved' | 'erased';
  status: 'pending' | 'approved' | 'rejected' | 'erased';
  role: string;
  /** Whether the member eats at the mess (counted in totalMembers, the headcount and the bill). */
  dines: boolean;
  actorId: string;
}

/** The link carries the one-time token: a listener mails it and never logs it. */
export interface PasswordResetEvent {
  userId: string;
  messId: string;
  /** The row's key (the token's hash): the notification's dedupe key, never the token. */
  tokenHash: string;
  link: string;
  ttlMinutes: number;
}

export interface MemberUpdatedEvent {
  userId: string;
}

/** A payment recorded on a member's account (not sent for a replayed Idempotency-Key repeat). */
export interface PaymentEvent {
  entryId: string;
  userId: string;
  amountPaise: number;
  date: string;
  method: string;
  reference: string | null;
  /** The member's balance right after the payment (paise; < 0 is credit). */
  balancePaise: number;
  actorId: string;
}

export interface LeaveEvent {
  leaveId: string;
  userId: string;
  status: 'pending' | 'approved' | 'rejected' | 'cancelled';
  startDate: string;
  endDate: string;
  startMealType: string;
  endMealType: string;
  /** Who decided: a manager or an admin; null when the policy approved it as asked. */
  decidedBy: string | null;
  /** Who made this change (the decider, or whoever cancelled). */
  actorId: string;
  /** The rejection's reason, if any. */
  note: string;
  /** The months whose marks the decision changed (present marks turned absent). */
  months: string[];
}

/** An extra recorded or deleted (after commit). */
export interface ExtraEvent {
  extraId: string;
  userId: string;
  date: string;
  /** `YYYY-MM`: the month whose bill changed. */
  month: string;
  item: string;
  amountPaise: number;
  actorId: string;
}

/** The lottery's result for the members with a choice who were in the event's mess at the close. */
export interface MessAllocatedEvent {
  windowId: string;
  term: string;
  /** `YYYY-MM-DD`: the first day in the new mess. */
  effectiveFrom: string;
  seed: string;
  results: {
    userId: string;
    /** 1-based place in the draw, of `members`. */
    position: number;
    members: number;
    /** The mess they get (their own included), or null: they stay where they are. */
    to: { slug: string; messName: string } | null;
    /** Whether `to` is the mess they are in. */
    stays: boolean;
    rank: number | null;
  }[];
}
