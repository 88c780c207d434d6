// The closed list of errors domain code may throw. The HTTP layer maps each code to a status in one place.

export type ErrorCode =
  | 'validation'
  | 'not_found'
  | 'conflict'
  | 'invalid_state_transition'
  | 'unauthorized'
  | 'forbidden'
  | 'unavailable';

export interface FieldError {
  field: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export class ValidationError extends DomainError {
  readonly statusCode = 422;
  constructor(
    readonly errors: FieldError[],
    message = errors.length === 1
      ? `${errors[0]!.field}: ${errors[0]!.message}`
      : `${errors.length} fields are invalid: ${errors.map((e) => e.field).join(', ')}`,
  ) {
    super('validation', message);
    this.name = 'ValidationError';
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('not_found', message);
  }
}

export class InvalidTransitionError extends DomainError {
  constructor(
    readonly currentStatus: string,
    readonly requestedStatus: string,
    allowed: readonly string[],
  ) {
    super(
      'invalid_state_transition',
      `The lead is in status "${currentStatus}" and cannot move to "${requestedStatus}". ` +
        (allowed.length
          ? `Allowed from "${currentStatus}": ${allowed.join(', ')}.`
          : `"${currentStatus}" is final.`),
      { currentStatus, allowedStatuses: allowed },
    );
  }
}
