import type { ApolloServerPlugin } from '@apollo/server';
import { boundedLabel, metrics } from '../common/metrics';

/**
 * Counts and times HTTP GraphQL operations by name. The name is the document's own (a GraphQL Name,
 * set once the operation is resolved), never the request's free-form operationName; a document that
 * does not parse or validate is `(invalid)`, an unnamed operation `(anonymous)`.
 */
export function apolloMetricsPlugin<C extends object>(): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      const started = performance.now();
      return {
        async willSendResponse(rc) {
          const operation = rc.operation ? (rc.operationName ? boundedLabel('graphql', rc.operationName) : '(anonymous)') : '(invalid)';
          const type = rc.operation?.operation ?? 'unknown';
          const body = rc.response.body;
          const failed = Boolean(rc.errors?.length) || (body.kind === 'single' && Boolean(body.singleResult.errors?.length));
          metrics.graphqlOperations.inc({ operation, type, result: failed ? 'error' : 'ok' });
          metrics.graphqlDuration.observe({ operation, type }, (performance.now() - started) / 1000);
        },
      };
    },
  };
}
