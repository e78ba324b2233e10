export { AuditModule } from './audit.module';
export { AuditService } from './audit.service';
export type { AuditEventDto } from './dto/audit.response';
