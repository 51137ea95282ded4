import type { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import type { ToolProxy } from './tool-proxy.entity';

/** A context a tool may act in: an account, or a course (an assignment counts as its course). */
export type ToolTarget = { type: 'Account'; accountId: number } | { type: 'Course'; course: Course };

/**
 * Canvas's `tool_proxy.active_in_context?`: the proxy is active and installed in the context itself
 * or in an account above it.
 */
export async function toolReaches(ctx: RequestContext, proxy: ToolProxy, target: ToolTarget): Promise<boolean> {
  if (proxy.workflowState !== 'active') return false;
  if (target.type === 'Course' && proxy.contextType === 'Course') return proxy.contextId === target.course.id;
  if (proxy.contextType !== 'Account') return false;
  const chain = await ctx.authz.accountChain(target.type === 'Course' ? target.course.accountId : target.accountId);
  return chain.some((a) => a.id === proxy.contextId);
}
