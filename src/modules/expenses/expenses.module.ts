import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { ExpensesController } from './expenses.controller';
import { ExpensesQueries } from './expenses.queries';
import { ExpensesRepository } from './expenses.repository';
import { ExpensesService } from './expenses.service';

@Module({
  imports: [AuditModule, MessConfigModule],
  controllers: [ExpensesController],
  providers: [ExpensesRepository, ExpensesService, ExpensesQueries],
  exports: [ExpensesService, ExpensesQueries],
})
export class ExpensesModule {}
