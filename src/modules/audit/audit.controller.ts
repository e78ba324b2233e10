import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Allow } from '../../common/auth/auth.decorators';
import { ApiRoleAuth } from '../../common/http/api-docs';
import { AUDIT_ENTITY_INVALID, AUDIT_RANGE_REVERSED } from './audit.errors';
import { AuditService } from './audit.service';
import { ListAuditQuery } from './dto/audit.requests';
import { AuditListDto, toAuditEventResponse } from './dto/audit.response';

@ApiTags('Audit')
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @Allow('audit.read')
  @ApiOperation({
    summary: 'The audit trail (admin, treasurer): who changed what, from what to what; newest first',
    description:
      'Every change to money or membership, recorded in the same transaction as the change: expenses ' +
      '(created, changed, deleted), approvals, rejections and role changes, the mess configuration (setup and ' +
      "changes), and the other modules' money records. `before`/`after` hold the record as it was and became; " +
      'money in them is integer paise in fields named `…Paise`. `from`/`to` are inclusive days in the mess ' +
      'time zone; `limit` is 1 to 100 (default 20). The log is append-only: the database refuses to change it.',
  })
  @ApiOkResponse({ type: AuditListDto })
  @ApiRoleAuth([
    400,
    {
      error: 'Validation failed',
      details: [{ field: 'entity', message: AUDIT_ENTITY_INVALID }],
    },
    { error: 'Validation failed', details: [{ field: 'to', message: AUDIT_RANGE_REVERSED }] },
  ])
  async listAuditEvents(@Query() query: ListAuditQuery): Promise<AuditListDto> {
    const { rows, total } = await this.audit.list(query);
    return {
      success: true,
      events: rows.map(toAuditEventResponse),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }
}
