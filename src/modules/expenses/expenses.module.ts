import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { MessConfigModule } from '../mess-config';
import { ExpenseDateWithinReach } from './expense-date.check';
import { ExpensesController } from './expenses.controller';
import { ExpensesQueries } from './expenses.queries';
import { ExpensesRepository } from './expenses.repository';
import { ExpensesService } from './expenses.service';

@Module({
  imports: [AuditTrailModule, MessConfigModule],
  controllers: [ExpensesController],
  providers: [ExpensesRepository, ExpensesService, ExpensesQueries, ExpenseDateWithinReach],
  exports: [ExpensesService, ExpensesQueries],
})
export class ExpensesModule {}
