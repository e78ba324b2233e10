import { ParseUUIDPipe } from '@nestjs/common';
import { badRequest } from '../errors/api-error';

/** Record ids are UUIDs; anything else is a clear 400 rather than a database error. */
export const IdPipe = new ParseUUIDPipe({
  exceptionFactory: () => badRequest('Invalid id: expected a UUID'),
});
