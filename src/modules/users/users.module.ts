import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [AuditTrailModule],
  controllers: [UsersController],
  providers: [UsersRepository, UsersService, AdminBootstrapService],
  exports: [UsersService],
})
export class UsersModule {}
