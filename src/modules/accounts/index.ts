export { AccountsModule } from './accounts.module';
export { AccountsService } from './accounts.service';
