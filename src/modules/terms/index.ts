export { TermsModule } from './terms.module';
export { AllocationService } from './allocation.service';
export { drawKey, drawOrder, runLottery } from './lottery';
// A member's choices for their data export (extension 2.3).
export { TermsMemberData, type MemberTermChoice } from './terms-member-data';
