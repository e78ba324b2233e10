export { TermsModule } from './terms.module';
export { AllocationService } from './allocation.service';
export { drawKey, drawOrder, runLottery } from './lottery';
