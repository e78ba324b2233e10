import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';

export class FieldErrorDto {
  @ApiProperty({ example: 'phone' }) field: string;
  @ApiProperty({ example: 'phone must be +91-XXXXXXXXXX or a 10-digit number' }) message: string;
}

export class ErrorResponseDto {
  @ApiProperty({ example: false }) success: false;
  @ApiProperty({ example: 'Validation failed' }) error: string;
  @ApiPropertyOptional({ type: [FieldErrorDto] }) details?: FieldErrorDto[];
}

/** The contract's bare guard bodies. */
export class GuardErrorDto {
  @ApiProperty({ enum: ['No token', 'Invalid token', 'Forbidden'], example: 'Invalid token' }) error: string;
}

export class MessageDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: 'Done' }) message: string;
}

const descriptions: Record<number, string> = {
  400: 'Invalid input; `details` has one entry per bad field',
  401: 'No token, or an invalid, expired or revoked token',
  403: 'The caller lacks the role or does not own the record',
  404: 'Not found',
  409: 'Conflicts with existing data',
  413: 'Request body too large',
  429: 'Too many requests; see Retry-After',
  503: 'A dependency is unavailable',
};

/** Documents the error answers a route can give, with the right body shape for each. */
export const ApiErrors = (...statuses: number[]) =>
  applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: descriptions[status] ?? 'Error',
        type: status === 401 ? GuardErrorDto : ErrorResponseDto,
      }),
    ),
  );

/** A route that needs a bearer token: documents it and its 401. */
export const ApiAuth = (...statuses: number[]) =>
  applyDecorators(ApiBearerAuth(), ApiErrors(401, ...statuses));
