import { messIdIfAny } from '../tenancy/mess-scope';
import type { Role } from './roles';

/**
 * Who may do what: the one table of roles to permissions. Routes name a permission with `@Allow(...)` (checked by
 * the global auth guard, 403 `{"error":"Forbidden"}`); a service asks `can(member, ...)` where the rule also depends
 * on the record (its owner). `admin` holds every permission. No code outside this file compares a role by hand.
 */
export const PERMISSIONS = {
  'users.manage': 'list all users, approve, reject, change roles and dining',
  'users.read-any': "read any member's profile",
  'members.list': "list the mess's members (the roster): names, rooms, college ids, roles, dining",
  'users.edit-any': "edit any member's profile",
  'users.send-password-reset': 'mail a member a link to set a new password',
  'mess.configure': "set up and change the mess's configuration",
  'mess.set-upi':
    "set or remove the mess's UPI id (`upi` of `PATCH /auth/admin/config`), where members pay it",
  'expenses.record': 'record expenses, and change the ones they recorded',
  'expenses.edit-any': "change or delete anyone's expense",
  'menus.publish': 'publish menus, and change the ones they published',
  'menus.edit-any': "change or withdraw anyone's menu",
  'attendance.read-all': "read every member's marks",
  'attendance.mark-others': 'mark attendance for other members, one by one or in bulk',
  'counter.scan': "scan members' passes at the counter",
  'feedback.read-all': "read every member's feedback",
  'feedback.edit-any': "edit anyone's feedback",
  'analytics.read': "read the mess's dashboards and headcount",
  'bills.read': "read the month's bill and the months' status",
  'months.close': 'close a month (freeze its bill and charge the accounts)',
  'months.reopen': 'reopen a closed month',
  'accounts.manage':
    'read every account, record payments, adjustments, opening balances and reversals, decide payment claims and import the bank statement',
  'audit.read': 'read the audit trail',
  'leave.decide': 'approve and reject leave, ask for leave for a member, read everyone’s leave',
  'extras.record': 'record and delete extras for members',
  'extras.read-all': "read every member's extras",
  'kitchen.forecast': "read the kitchen's forecast of plates per meal and its back-test",
  'kitchen.record-waste': "record what a meal's kitchen prepared and threw away",
  'kitchen.read-waste': "read the waste log and the month's waste summary",
  'health.summary': "read the service's health summary",
  'messes.manage': "create messes, move members between them, read the university's view",
  'privacy.manage':
    "set the deployment's privacy notice, export any member's data, list erasure requests and erase a member",
  'messes.act-in-any': 'act in any mess (naming it with `mess`), not only their own',
  'mess-windows.manage':
    "open, close and cancel the windows in which members choose a mess for a term, and read every member's line of an allocation",
} as const;

export type Permission = keyof typeof PERMISSIONS;

const GRANTS: Record<Exclude<Role, 'admin'>, readonly Permission[]> = {
  student: [],
  manager: [
    'users.read-any',
    'members.list',
    'expenses.record',
    'menus.publish',
    'attendance.read-all',
    'attendance.mark-others',
    'counter.scan',
    'feedback.read-all',
    'analytics.read',
    'bills.read',
    'leave.decide',
    'extras.record',
    'extras.read-all',
    'kitchen.forecast',
    'kitchen.record-waste',
    'kitchen.read-waste',
  ],
  treasurer: [
    'users.read-any',
    'members.list',
    'expenses.record',
    'attendance.read-all',
    'feedback.read-all',
    'analytics.read',
    'bills.read',
    'months.close',
    'accounts.manage',
    'mess.set-upi',
    'audit.read',
    'extras.read-all',
    'kitchen.read-waste',
  ],
};

const ALL = Object.keys(PERMISSIONS) as Permission[];
const TABLE: Record<Role, ReadonlySet<Permission>> = {
  student: new Set(GRANTS.student),
  manager: new Set(GRANTS.manager),
  treasurer: new Set(GRANTS.treasurer),
  admin: new Set(ALL),
};

/**
 * Whether a member may act in a mess (extension 2.2): in their own mess, in any mess with `messes.act-in-any`
 * (admins), and, on a route that shows only the caller's own records (their account, marks, extras, leave, share),
 * in a mess they belonged to: `belongedTo` answers that (MessGuard asks the members' past messes), and is asked
 * only then. Row-level security shows such a route only that mess's rows, and the route only the caller's own among
 * them. Anything else is refused.
 */
export const mayActIn = async (
  member: { role: Role; messId: string },
  messId: string,
  route: { ownRecordsOnly: boolean },
  belongedTo: (messId: string) => Promise<boolean> = () => Promise.resolve(false),
): Promise<boolean> =>
  member.messId === messId ||
  can(member, 'messes.act-in-any') ||
  (route.ownRecordsOnly && (await belongedTo(messId)));

/**
 * Whether a member in this role may do this, in the mess the request acts in: outside their own mess (a route that
 * shows their own records there), or before the request's mess is decided, a member holds no staff permission,
 * unless their role acts in any mess.
 */
export const can = (member: { role: Role; messId?: string }, permission: Permission): boolean =>
  TABLE[member.role].has(permission) &&
  (member.messId === undefined ||
    member.messId === messIdIfAny() ||
    TABLE[member.role].has('messes.act-in-any'));

/** The roles that hold a permission (e.g. who is told of something a permission lets them act on). */
export const rolesWith = (permission: Permission): Role[] =>
  (Object.keys(TABLE) as Role[]).filter((role) => TABLE[role].has(permission));
