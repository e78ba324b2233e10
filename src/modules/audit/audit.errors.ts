import { AUDIT_ENTITIES } from '../audit-trail';

/** `to` before `from` in the audit list's query. */
export const AUDIT_RANGE_REVERSED = 'to must not be before from';
export const AUDIT_ENTITY_INVALID = `entity must be one of ${AUDIT_ENTITIES.join(', ')}`;
