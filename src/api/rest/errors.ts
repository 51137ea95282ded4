import type { FastifyReply } from 'fastify';
import type { GraphQLError } from 'graphql';
import { DomainError, FieldError } from '../../common/errors';

export interface RestError {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const UNAUTHENTICATED_BODY = { status: 'unauthenticated', errors: [{ message: 'user authorization required' }] };
export const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Bearer realm="canvas-lms"' };
const FORBIDDEN_BODY = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
/** Canvas's body for a missing object and for a path no route serves (its routes fall through to a 404 alike). */
export const NOT_FOUND_BODY = { errors: [{ message: 'The specified resource does not exist.' }] };
export const INTERNAL_BODY = { errors: [{ message: 'An error occurred.', error_code: 'internal_server_error' }] };

export function validationBody(fields: FieldError[]): { errors: Record<string, FieldError[]> } {
  const errors: Record<string, FieldError[]> = {};
  for (const f of fields) (errors[f.attribute] ??= []).push(f);
  return { errors };
}

const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** A variable that failed GraphQL coercion (a malformed date or number) names the field it was for. */
function coercionField(message: string): FieldError | null {
  const m = /^Variable "\$\w+" got invalid value .*? at "([\w.[\]]+)"; (.*)$/s.exec(message) ?? /^Variable "\$(\w+)" got invalid value .*?; (.*)$/s.exec(message);
  if (!m) return null;
  const attr = snake(m[1].split('.').pop()!.replace(/\[\d+\]$/, ''));
  return { attribute: attr, type: 'invalid', message: m[2].split('\n')[0] };
}

/** Domain error → Canvas status and body. Returns null for an unexpected error (a 500). */
export function domainToRest(e: DomainError): RestError {
  switch (e.code) {
    case 'UNAUTHENTICATED':
      return { status: 401, body: { ...UNAUTHENTICATED_BODY, errors: [{ message: e.message }] }, headers: WWW_AUTHENTICATE };
    case 'FORBIDDEN':
      return { status: (e.extensions.status as number) ?? 403, body: FORBIDDEN_BODY };
    case 'NOT_FOUND':
      return { status: 404, body: NOT_FOUND_BODY };
    case 'BAD_USER_INPUT':
      return { status: 400, body: validationBody((e.extensions.fields as FieldError[]) ?? []) };
    case 'CONFLICT':
      return { status: 409, body: { errors: [{ message: e.message }] } };
    case 'REQUEST_ERROR':
      return { status: (e.extensions.status as number) ?? 400, body: e.extensions.body };
  }
}

export function graphqlErrorToRest(err: GraphQLError): RestError | null {
  const original = err.originalError;
  if (original instanceof DomainError) return domainToRest(original);
  if (!original || original.name === 'GraphQLError') {
    const field = coercionField(err.message);
    if (field) return { status: 400, body: validationBody([field]) };
  }
  const code = err.extensions?.code;
  if (code === 'BAD_USER_INPUT' || code === 'GRAPHQL_VALIDATION_FAILED') {
    return { status: 400, body: { errors: [{ message: err.message }] } };
  }
  return null;
}

export function sendRestError(reply: FastifyReply, err: RestError): FastifyReply {
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.status).send(err.body);
}
