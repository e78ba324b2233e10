import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { MessConfigModule } from '../mess-config';
import { MealsController } from './meals.controller';
import { MealsRepository } from './meals.repository';
import { MealsService } from './meals.service';
import { RotationController } from './rotation.controller';
import { RotationRepository } from './rotation.repository';
import { RotationSchedule } from './rotation.schedule';
import { RotationService } from './rotation.service';

@Module({
  imports: [AuditTrailModule, MessConfigModule],
  controllers: [RotationController, MealsController],
  providers: [MealsRepository, MealsService, RotationRepository, RotationService, RotationSchedule],
  exports: [MealsService, RotationSchedule],
})
export class MealsModule {}
