/**
 * Typed domain errors. Services throw these; GraphQL reports them through `extensions.code`
 * and the REST router turns that code into Canvas's status and body.
 */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'CONFLICT'
  | 'REQUEST_ERROR';

export interface FieldError {
  attribute: string;
  type: string;
  message: string;
}

export class DomainError extends Error {
  /** graphql-js copies an original error's `extensions` onto the GraphQL error it reports. */
  readonly extensions: Record<string, unknown>;
  constructor(
    readonly code: ErrorCode,
    message: string,
    extensions: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.extensions = { code, ...extensions };
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = 'user authorization required') {
    super('UNAUTHENTICATED', message);
  }
}

/** Logged in but not allowed to perform the action on an object the caller may see. */
export class ForbiddenError extends DomainError {
  constructor(message = 'user not authorized to perform that action', status?: number) {
    super('FORBIDDEN', message, status ? { status } : {});
  }
}

/** Missing, soft-deleted, or invisible to the caller: all look the same from outside. */
export class NotFoundError extends DomainError {
  constructor(message = 'The specified resource does not exist.') {
    super('NOT_FOUND', message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

/**
 * An error Canvas renders with an ad-hoc body and status (e.g. `{"message": "..."}` with 400).
 * `body` is the exact JSON REST clients receive.
 */
export class RequestError extends DomainError {
  constructor(message: string, status = 400, body?: unknown) {
    super('REQUEST_ERROR', message, { status, body: body ?? { message } });
  }
}

/** Model validation failure: Canvas's `{"errors":{field:[{attribute,type,message}]}}`. */
export class ValidationError extends DomainError {
  readonly fields: FieldError[];
  constructor(fields: FieldError[]) {
    super('BAD_USER_INPUT', fields.map((f) => `${f.attribute}: ${f.message}`).join('; '), { fields });
    this.fields = fields;
  }

  static of(attribute: string, type: string, message = type): ValidationError {
    return new ValidationError([{ attribute, type, message }]);
  }
}

/** Collects field errors so a service can report all of them at once. */
export class Validator {
  private readonly errors: FieldError[] = [];
  add(attribute: string, type: string, message = type): this {
    this.errors.push({ attribute, type, message });
    return this;
  }
  check(condition: boolean, attribute: string, type: string, message = type): this {
    if (!condition) this.add(attribute, type, message);
    return this;
  }
  get ok(): boolean {
    return this.errors.length === 0;
  }
  throwIfInvalid(): void {
    if (this.errors.length) throw new ValidationError(this.errors);
  }
}
