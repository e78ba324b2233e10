import { EmailCollisionReport } from './email-collisions.report';
import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [AuditModule],
  controllers: [UsersController],
  providers: [UsersRepository, UsersService, AdminBootstrapService, EmailCollisionReport],
  exports: [UsersService],
})
export class UsersModule {}
