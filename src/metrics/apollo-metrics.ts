import type { BaseContext, GraphQLRequestContextWillSendResponse } from '@apollo/server';
import { boundedLabel, metrics } from '../common/metrics';

/**
 * Counts and times an HTTP GraphQL operation by name, as Apollo is about to answer it (`started`: the
 * performance.now() of the request's start). The name is the document's own (a GraphQL Name, set once
 * the operation is resolved), never the request's free-form operationName; a document that does not
 * parse or validate is `(invalid)`, an unnamed operation `(anonymous)`.
 */
export function recordGraphqlOperation(rc: GraphQLRequestContextWillSendResponse<BaseContext>, started: number): void {
  const operation = rc.operation ? (rc.operationName ? boundedLabel('graphql', rc.operationName) : '(anonymous)') : '(invalid)';
  const type = rc.operation?.operation ?? 'unknown';
  const body = rc.response.body;
  const failed = Boolean(rc.errors?.length) || (body.kind === 'single' && Boolean(body.singleResult.errors?.length));
  metrics.graphqlOperations.inc({ operation, type, result: failed ? 'error' : 'ok' });
  metrics.graphqlDuration.observe({ operation, type }, (performance.now() - started) / 1000);
}
