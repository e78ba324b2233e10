/**
 * In-process domain events, published after the write has committed. Modules that care (analytics, notifications)
 * listen with @OnEvent(...); publishers never know who listens. Payloads carry what a listener needs to decide
 * without reading the publisher's tables.
 */
export const DomainEvents = {
  ExpenseRecorded: 'expense.recorded',
  ExpenseChanged: 'expense.changed',
  ExpenseDeleted: 'expense.deleted',
  AttendanceMarked: 'attendance.marked',
  /** After the per-mark events of one bulk request: the whole batch of one meal slot, for listeners that summarise. */
  AttendanceMarkedInBulk: 'attendance.marked-in-bulk',
  MealPublished: 'meal.published',
  MealChanged: 'meal.changed',
  MealDeleted: 'meal.deleted',
  /** Submitted or edited. */
  FeedbackSubmitted: 'feedback.submitted',
  /** A member's approval status, role or dining changed (who counts as an approved member or a diner). */
  MemberChanged: 'member.changed',
  /** Any write of a member's row (also name, password, role, status): who a token names must be read again. */
  MemberUpdated: 'member.updated',
  /** A payment was recorded on a member's account. */
  PaymentRecorded: 'account.payment-recorded',
  /** A leave was decided (approved or rejected by a manager, or approved at once) or cancelled. */
  LeaveDecided: 'leave.decided',
  /** An extra was recorded for a member, or deleted: its month's bill changed. */
  ExtraRecorded: 'extra.recorded',
  ExtraDeleted: 'extra.deleted',
} as const;

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
}

export interface AttendanceBulkEvent {
  date: string;
  mealType: string;
  actorId: string;
  /** When the batch was written (ISO), the same for all its marks. */
  markedAt: string;
  marks: AttendanceEvent[];
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
  change: 'approved' | 'rejected' | 'role' | 'dines';
  status: 'pending' | 'approved' | 'rejected';
  role: string;
  /** Whether the member eats at the mess (counted in totalMembers, the headcount and the bill). */
  dines: boolean;
  actorId: string;
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
