import { Module } from '@nestjs/common';
import { AttendanceModule } from '../attendance';
import { AuditTrailModule } from '../audit-trail';
import { LeaveCalendarModule } from '../leave-calendar';
import { MealsModule } from '../meals';
import { MessConfigModule } from '../mess-config';
import { MessesModule } from '../messes';
import { UsersModule } from '../users';
import { ForecastModelListener } from './forecast-model.listener';
import { ForecastSchedule } from './forecast.schedule';
import { ForecastService } from './forecast.service';
import { KitchenController } from './kitchen.controller';
import { KitchenQueries } from './kitchen.queries';
import { KitchenRecordsReader } from './kitchen-records';
import { KitchenRepository } from './kitchen.repository';
import { WasteCountListener } from './waste-count.listener';
import { WasteMealCheck } from './waste-meal.check';
import { WasteService } from './waste.service';

/** Cooking for the right number: the forecast of plates per meal, its back-test, and the waste log. */
@Module({
  imports: [
    AttendanceModule,
    AuditTrailModule,
    LeaveCalendarModule,
    MealsModule,
    MessConfigModule,
    MessesModule,
    UsersModule,
  ],
  controllers: [KitchenController],
  providers: [
    KitchenRepository,
    KitchenRecordsReader,
    ForecastService,
    ForecastSchedule,
    ForecastModelListener,
    WasteService,
    WasteMealCheck,
    WasteCountListener,
    KitchenQueries,
  ],
  exports: [KitchenQueries, ForecastSchedule],
})
export class KitchenModule {}
