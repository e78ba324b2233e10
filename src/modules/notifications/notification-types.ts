/**
 * The contract's notification types with their two support flags: flag 1 "email supported", flag 2 "WhatsApp
 * supported". A type without flag 2 goes by email whatever the member prefers. Each type has one preference switch.
 */
export const NOTIFICATION_TYPES = [
  'MEAL_REMINDER',
  'PAYMENT_DUE',
  'COST_SUMMARY',
  'DISCREPANCY_ALERT',
  'MEAL_UPDATE',
  'EXPENSE_ADDED',
  'BUDGET_EXCEEDED',
  'ATTENDANCE_CONFIRMATION',
  'PAYMENT_RECEIVED',
  'LEAVE_DECIDED',
  'PASSWORD_RESET',
  'MESS_ALLOCATED',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const CHANNEL_PREFERENCES = ['email', 'whatsapp', 'both'] as const;
export type ChannelPreference = (typeof CHANNEL_PREFERENCES)[number];

export const CHANNELS = ['whatsapp', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface NotificationTypeInfo {
  /** Flag 1. */
  email: boolean;
  /** Flag 2. */
  whatsapp: boolean;
  /** The member's on/off switch for this type, in `preferences`; null: always sent (a mail the member asked for). */
  switch: PreferenceSwitch | null;
  purpose: string;
}

export const PREFERENCE_SWITCHES = [
  'mealReminders',
  'paymentDue',
  'costSummary',
  'discrepancyAlerts',
  'mealUpdates',
  'expenseAdded',
  'budgetExceeded',
  'attendanceConfirmations',
  'paymentReceived',
  'leaveDecisions',
] as const;
export type PreferenceSwitch = (typeof PREFERENCE_SWITCHES)[number];
export type PreferenceSwitches = Record<PreferenceSwitch, boolean>;

export const NOTIFICATION_TYPE_INFO: Record<NotificationType, NotificationTypeInfo> = {
  MEAL_REMINDER: {
    email: true,
    whatsapp: true,
    switch: 'mealReminders',
    purpose: 'daily meal attendance reminder',
  },
  PAYMENT_DUE: { email: true, whatsapp: true, switch: 'paymentDue', purpose: 'payment deadline' },
  COST_SUMMARY: { email: true, whatsapp: false, switch: 'costSummary', purpose: 'monthly cost breakdown' },
  DISCREPANCY_ALERT: {
    email: true,
    whatsapp: true,
    switch: 'discrepancyAlerts',
    purpose: 'attendance mismatch warning',
  },
  MEAL_UPDATE: {
    email: true,
    whatsapp: false,
    switch: 'mealUpdates',
    purpose: 'meal count changes (headcount) and menu changes',
  },
  EXPENSE_ADDED: { email: true, whatsapp: false, switch: 'expenseAdded', purpose: 'new expense recorded' },
  BUDGET_EXCEEDED: { email: true, whatsapp: true, switch: 'budgetExceeded', purpose: 'budget limit alert' },
  ATTENDANCE_CONFIRMATION: {
    email: true,
    whatsapp: true,
    switch: 'attendanceConfirmations',
    purpose: 'attendance confirmation request',
  },
  PAYMENT_RECEIVED: {
    email: true,
    whatsapp: true,
    switch: 'paymentReceived',
    purpose: 'receipt for a payment recorded on your account',
  },
  LEAVE_DECIDED: {
    email: true,
    whatsapp: true,
    switch: 'leaveDecisions',
    purpose: 'your leave was approved or rejected',
  },
  PASSWORD_RESET: {
    email: true,
    whatsapp: false,
    switch: null,
    purpose: 'a link to set a new password (asked for by you or sent by an admin); no switch, email only',
  },
  MESS_ALLOCATED: {
    email: true,
    whatsapp: true,
    switch: null,
    purpose: "the mess the term's lottery gave you (you chose in its window); no switch",
  },
};

/** What a member has until they change something: email, every switch on. */
export const DEFAULT_CHANNEL: ChannelPreference = 'email';
export const DEFAULT_SWITCHES: PreferenceSwitches = Object.fromEntries(
  PREFERENCE_SWITCHES.map((key) => [key, true]),
) as PreferenceSwitches;
