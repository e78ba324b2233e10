/** A member's role in the mess; what each may do is in `permissions.ts`, never compared by hand. */
export const ROLES = ['student', 'manager', 'treasurer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A member's approval status; `erased`: pseudonymised at their request (extension 2.3), kept for the books. */
export const USER_STATUSES = ['pending', 'approved', 'rejected', 'erased'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
