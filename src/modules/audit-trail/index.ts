export { AuditTrailModule } from './audit-trail.module';
export { AuditTrail, type AuditEntry } from './audit-trail';
export type { AuditPageFilter } from './audit-trail.repository';
export { AUDIT_ENTITIES, AUDIT_ENTITY_ID_MAX, type AuditEntity, type AuditEventRow } from './audit.schema';
