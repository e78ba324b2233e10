import { Global, Module } from '@nestjs/common';
import { MessDirectory } from './mess-directory';
import { MessGuard } from './mess.guard';
import { MessesRepository } from './messes.repository';

/** The deployment's messes: finding one by id or slug, and deciding each request's mess (MessGuard). */
@Global()
@Module({
  providers: [MessesRepository, MessDirectory, MessGuard],
  exports: [MessesRepository, MessDirectory, MessGuard],
})
export class MessesModule {}
