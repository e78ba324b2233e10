import { HttpException, HttpStatus } from '@nestjs/common';

export interface FieldError {
  field: string;
  message: string;
}

/** Every error but the guards' is `{success: false, error, details?}`; this carries one. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly error: string,
    readonly details?: FieldError[],
    /** A 409's record that holds the place (the menu of the slot, the member's feedback): the client can open it. */
    readonly existingId?: string,
  ) {
    super(
      {
        success: false,
        error,
        ...(details?.length ? { details } : {}),
        ...(existingId ? { existingId } : {}),
      },
      status,
    );
  }
}

/** The contract's exact guard bodies: `{error: 'No token'}`, `{error: 'Invalid token'}`, `{error: 'Forbidden'}`. */
export class GuardError extends HttpException {
  constructor(status: 401 | 403, error: 'No token' | 'Invalid token' | 'Forbidden') {
    super({ error }, status);
  }
}

export const badRequest = (error: string, details?: FieldError[]) =>
  new ApiError(HttpStatus.BAD_REQUEST, error, details);
export const notFound = (error: string) => new ApiError(HttpStatus.NOT_FOUND, error);
export const conflict = (error: string, existingId?: string) =>
  new ApiError(HttpStatus.CONFLICT, error, undefined, existingId);
export const forbidden = (error: string) => new ApiError(HttpStatus.FORBIDDEN, error);
export const unauthorized = (error: string) => new ApiError(HttpStatus.UNAUTHORIZED, error);
export const unavailable = (error: string) => new ApiError(HttpStatus.SERVICE_UNAVAILABLE, error);

/** A body that must reach the client exactly as given (health probes report their own shape). */
export class RawBodyError extends HttpException {
  /** `retryAfter`: seconds for the Retry-After header (a 503 of a dependency that is away). */
  constructor(
    status: number,
    body: object,
    readonly retryAfter?: number,
  ) {
    super(body, status);
  }
}

/** A well-formed request the server will not carry out as asked (an Idempotency-Key reused with another body). */
export const unprocessable = (error: string) => new ApiError(HttpStatus.UNPROCESSABLE_ENTITY, error);
