/** A member's role in the mess; what each may do is in `permissions.ts`, never compared by hand. */
export const ROLES = ['student', 'manager', 'treasurer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A member's approval status. */
export const USER_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
