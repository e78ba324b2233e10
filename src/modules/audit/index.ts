export { AuditModule } from './audit.module';
