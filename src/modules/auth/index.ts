export { AuthModule } from './auth.module';
export { AuthGuard } from './auth.guard';
