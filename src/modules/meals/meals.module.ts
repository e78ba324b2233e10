import { Module } from '@nestjs/common';
import { MessConfigModule } from '../mess-config';
import { MealsController } from './meals.controller';
import { MealsRepository } from './meals.repository';
import { MealsService } from './meals.service';

@Module({
  imports: [MessConfigModule],
  controllers: [MealsController],
  providers: [MealsRepository, MealsService],
  exports: [MealsService],
})
export class MealsModule {}
