import { GraphQLError, GraphQLFormattedError, Kind } from 'graphql';

/**
 * What Apollo Server (5.x) does with the errors of an executed operation before it answers, for the
 * fast path (fast-path.ts), which answers cached operations without Apollo's pipeline and must answer
 * them exactly as Apollo would. These are Apollo internals (errorNormalize.ts, internalErrorClasses.ts,
 * requestPipeline.ts), not exported by the package, restated here; test/graphql.fast-path.test.ts
 * compares both paths' answers, so a change in Apollo's behaviour shows there.
 */

export type FormatError = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/** The status and headers errors ask for through `extensions.http` (Apollo's HTTPGraphQLHead). */
export interface ErrorHead {
  status?: number;
  headers: Map<string, string>;
}

/**
 * A variable the request's value did not coerce to: graphql-js says so in an error on the variable's
 * definition. Apollo gives such errors the code BAD_USER_INPUT (when they have none) and, with no
 * data at all, answers 400.
 */
function isBadUserInput(error: GraphQLError): boolean {
  const node = error.nodes?.length === 1 ? error.nodes[0] : undefined;
  if (node?.kind !== Kind.VARIABLE_DEFINITION) return false;
  const v = `Variable "$${node.variable.name.value}" `;
  return ['has invalid value', 'got invalid value ', 'of required type ', 'of non-null type '].some((rest) => error.message.startsWith(v + rest));
}

/** Apollo's UserInputError, as its pipeline makes it of a variable's coercion error. */
function userInputError(e: GraphQLError): GraphQLError {
  const error = new GraphQLError(e.message, { nodes: e.nodes, originalError: e.originalError ?? e, extensions: { ...e.extensions, code: 'BAD_USER_INPUT' } });
  error.name = 'UserInputError';
  return error;
}

/** The execution result's errors as Apollo hands them to plugins and to formatting. */
export function executionErrors(errors: readonly GraphQLError[] | undefined): readonly GraphQLError[] | undefined {
  return errors?.map((e) => (isBadUserInput(e) && e.extensions?.code == null ? userInputError(e) : e));
}

export function ensureGraphQLError(maybe: unknown): GraphQLError {
  const error = maybe instanceof Error ? maybe : new GraphQLError('Unexpected error value: ' + String(maybe));
  return error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error });
}

function isPartialHead(x: unknown): x is Partial<ErrorHead> {
  return (
    !!x &&
    typeof x === 'object' &&
    (!('status' in x) || typeof (x as ErrorHead).status === 'number') &&
    (!('headers' in x) || (x as ErrorHead).headers instanceof Map)
  );
}

/**
 * Apollo's normalizeAndFormatErrors without stack traces (includeStacktraceInErrorResponses is off):
 * a default code, `extensions.http` taken off each error into the response head, then formatError (an
 * error it throws becomes Apollo's masked internal error).
 */
export function formatErrors(errors: readonly unknown[], formatError: FormatError): { formattedErrors: GraphQLFormattedError[]; head: ErrorHead } {
  const head: ErrorHead = { headers: new Map() };
  const enrich = (maybe: unknown): GraphQLFormattedError => {
    const error = ensureGraphQLError(maybe);
    const extensions: Record<string, unknown> = { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' };
    if (isPartialHead(extensions.http)) {
      const http = extensions.http;
      if (http.status) head.status = http.status;
      if (http.headers) for (const [name, value] of http.headers) head.headers.set(name.toLowerCase(), value);
      delete extensions.http;
    }
    return { ...error.toJSON(), extensions };
  };
  const formattedErrors = errors.map((error) => {
    try {
      return formatError(enrich(error), error);
    } catch {
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
  });
  return { formattedErrors, head };
}
