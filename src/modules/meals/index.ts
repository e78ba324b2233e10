export { MealsModule } from './meals.module';
export { MealsService } from './meals.service';
