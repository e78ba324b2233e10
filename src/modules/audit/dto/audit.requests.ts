import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsUUID } from 'class-validator';
import { DateField, Optional, TextField } from '../../../common/http/fields';
import { PageQuery } from '../../../common/http/paging';
import { AUDIT_ENTITY_INVALID } from '../audit.errors';
import { AUDIT_ENTITIES, AUDIT_ENTITY_ID_MAX, type AuditEntity } from '../../audit-trail';

/** The largest page of the audit trail; a larger `limit` is a 400. */
export const AUDIT_PAGE_MAX = 100;

export class ListAuditQuery extends PageQuery(20, AUDIT_PAGE_MAX) {
  @ApiPropertyOptional({ enum: AUDIT_ENTITIES, example: 'expense' })
  @IsIn(AUDIT_ENTITIES, { message: AUDIT_ENTITY_INVALID })
  @Optional()
  entity?: AuditEntity;

  @TextField(1, AUDIT_ENTITY_ID_MAX, {
    optional: true,
    description: "The changed record's id: a UUID, or a month `YYYY-MM` for a month",
    example: '0193a5e5-1b2c-7d3e-8f40-5a6b7c8d9e0f',
  })
  entityId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'The member who made the changes',
    example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b',
  })
  @IsUUID(undefined, { message: 'actorId must be a UUID' })
  @Optional()
  actorId?: string;

  @DateField({
    optional: true,
    description: 'First day (inclusive), in the mess time zone (MESS_TIMEZONE)',
    example: '2025-03-01',
  })
  from?: string;

  @DateField({
    optional: true,
    description: 'Last day (inclusive), in the mess time zone; not before `from`',
    example: '2025-03-31',
  })
  to?: string;
}
