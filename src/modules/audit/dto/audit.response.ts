import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { PaginationDto } from '../../../common/http/paging';
import type { AuditEventWithActor } from '../audit.service';
import { AUDIT_ENTITIES, type AuditEntity } from '../../audit-trail';

export class AuditActorDto {
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) _id: string;
  @ApiProperty({ example: 'Ravi Kumar' }) fullName: string;
}

const SNAPSHOT = {
  type: 'object',
  additionalProperties: true,
  nullable: true,
} as const;

@ApiExtraModels(AuditActorDto)
export class AuditEventDto {
  @ApiProperty({ example: '0193a5e6-2c3d-7e4f-9a51-6b7c8d9e0f1a' }) _id: string;
  @ApiProperty({ format: 'date-time', example: '2025-03-14T09:12:45.123Z' }) at: string;
  // A nullable reference in OpenAPI 3.0: `nullable` beside a bare $ref is ignored, beside allOf it holds.
  @ApiProperty({
    allOf: [{ $ref: getSchemaPath(AuditActorDto) }],
    nullable: true,
    description: 'Who made the change; null when the service itself did (start-up, schedules, tools)',
  })
  actor: AuditActorDto | null;
  @ApiProperty({
    description:
      'What happened: `created`, `changed`, `deleted` (expense); `approved`, `rejected`, `role-changed`, ' +
      '`admin-ensured` (user); `setup`, `changed` (config); other modules add their own verbs',
    example: 'changed',
  })
  action: string;
  @ApiProperty({ enum: AUDIT_ENTITIES, example: 'expense' }) entity: AuditEntity;
  @ApiProperty({ description: "The changed record's id", example: '0193a5e5-1b2c-7d3e-8f40-5a6b7c8d9e0f' })
  entityId: string;
  @ApiProperty({
    ...SNAPSHOT,
    description:
      'The record before the change (null for a creation). Money is integer paise, in `…Paise` fields.',
    example: { category: 'Vegetables', amountPaise: 125050, description: 'Onions', date: '2025-03-14' },
  })
  before: Record<string, unknown> | null;
  @ApiProperty({
    ...SNAPSHOT,
    description:
      'The record after the change (null for a deletion). Money is integer paise, in `…Paise` fields.',
    example: { category: 'Vegetables', amountPaise: 132000, description: 'Onions', date: '2025-03-14' },
  })
  after: Record<string, unknown> | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The request that made the change (its X-Request-Id, as in the logs); null outside a request',
    example: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  })
  requestId: string | null;
}

export class AuditListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [AuditEventDto], description: 'Newest first' }) events: AuditEventDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export const toAuditEventResponse = ({ event, actorName }: AuditEventWithActor): AuditEventDto => ({
  _id: event.id,
  at: event.at.toISOString(),
  actor: event.actorId === null ? null : { _id: event.actorId, fullName: actorName ?? '' },
  action: event.action,
  entity: event.entity,
  entityId: event.entityId,
  before: (event.before as Record<string, unknown> | null) ?? null,
  after: (event.after as Record<string, unknown> | null) ?? null,
  requestId: event.requestId,
});
