import type { ApolloServerPlugin } from '@apollo/server';
import { applyGraphqlLimits } from '../graphql/apollo-limits';
import type { RequestHooks } from '../graphql/fast-path';
import { subscriptionRefusal } from '../graphql/http-subscriptions';
import { nameGraphqlSpan } from '../graphql/tracing';
import type { KnownOperations } from '../graphql/known-operations';
import type { GraphqlLimits } from '../graphql/limits';
import { answerUnavailable } from '../http/unavailable';
import { recordGraphqlOperation } from '../metrics/apollo-metrics';
import type { RequestContext } from '../request/context';

/**
 * Everything this service does in Apollo's request pipeline, at two hooks (run by one plugin: Apollo
 * awaits every plugin's listener at every hook of every request, so four plugins cost four promises
 * per hook where one costs one, measured on the bench's floor row). The GraphQL fast path
 * (graphql/fast-path.ts) runs the same two for the requests it answers without Apollo.
 *
 * - didResolveOperation: the request's span is named after the operation (when tracing); a subscription over HTTP is refused (http-subscriptions.ts); the limits
 *   (introspection, cost, execution budget, throttle charge: apollo-limits.ts) are applied to every
 *   operation, a refused subscription included, and when both refuse, the subscription's error is the
 *   answer, as it was when they were separate plugins. A refusal is thrown before anything is charged
 *   (the fast path hands a refused request to Apollo, which refuses it again). The resolved operation
 *   of a valid document is remembered for the fast path (`known`).
 * - willSendResponse: a resolver's unreachable database makes the response a 503 (http/unavailable.ts);
 *   the operation is counted and timed (metrics/apollo-metrics.ts).
 */
export function graphqlRequestHooks(limits: GraphqlLimits, known?: KnownOperations): RequestHooks<RequestContext> {
  return {
    didResolveOperation(rc) {
      nameGraphqlSpan({ document: rc.document, operationName: rc.operationName });
      if (known && rc.operation) known.remember(rc.source, rc.request.operationName, { document: rc.document, operation: rc.operation, operationName: rc.operationName });
      const refused = subscriptionRefusal(rc.operation, rc.contextValue);
      let overLimit: unknown = null;
      try {
        applyGraphqlLimits(limits, rc);
      } catch (e) {
        overLimit = e;
      }
      if (refused) throw refused;
      if (overLimit) throw overLimit;
    },
    willSendResponse(rc, started) {
      answerUnavailable(rc);
      recordGraphqlOperation(rc, started);
    },
  };
}

/** The hooks as Apollo's plugin. */
export function graphqlRequestPlugin(hooks: RequestHooks<RequestContext>): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      const started = performance.now();
      return {
        async didResolveOperation(rc) {
          hooks.didResolveOperation(rc);
        },
        async willSendResponse(rc) {
          hooks.willSendResponse(rc, started);
        },
      };
    },
  };
}
