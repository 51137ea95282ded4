import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { DomainError } from '../common/errors';
import { isDbUnavailable } from '../db/unavailable';
import { unavailableFormatted } from '../http/unavailable';

/**
 * Only a stable public shape leaves the server, over HTTP and graphql-ws alike: message, path and
 * code; never a stack, and never the message of an unexpected error (a driver's message can name
 * hosts, ports or SQL).
 */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = error instanceof GraphQLError ? error.originalError : undefined;
  if (original && isDbUnavailable(original)) return unavailableFormatted(formatted.path);
  if (original && !(original instanceof DomainError) && original.name !== 'GraphQLError' && original.name !== 'ArgumentValidationError') {
    return { message: 'An error occurred.', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  const { stacktrace: _drop, ...extensions } = (formatted.extensions ?? {}) as Record<string, unknown>;
  return { ...formatted, extensions };
}

/** The same for every error of a result (graphql-ws sends results without Apollo's formatError). */
export function formatResultErrors<T extends { errors?: readonly GraphQLError[] }>(result: T): T {
  if (!result.errors?.length) return result;
  return { ...result, errors: result.errors.map((e) => formatGraphqlError(e.toJSON(), e)) };
}
