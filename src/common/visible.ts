import { DomainError, ForbiddenError, NotFoundError, UnauthenticatedError } from './errors';

/**
 * The result of a checked lookup, or null when the lookup refuses (missing, not visible, anonymous).
 * Field resolvers that return another object load it through the same checked service lookup as its
 * top-level query and wrap it here, so a nested object the caller may not see is simply absent:
 * never an error that would tell the caller it exists. Unexpected failures still propagate.
 */
export async function orHidden<T>(lookup: Promise<T> | (() => Promise<T>)): Promise<T | null> {
  try {
    return await (typeof lookup === 'function' ? lookup() : lookup);
  } catch (e) {
    if (e instanceof DomainError) return null;
    throw e;
  }
}


/**
 * Like orHidden, for nested lists: a refusal (not found, forbidden, anonymous) is null, but a bad
 * argument of the nested field itself (e.g. a search term too short) is still reported as one.
 */
export async function orRefused<T>(lookup: Promise<T> | (() => Promise<T>)): Promise<T | null> {
  try {
    return await (typeof lookup === 'function' ? lookup() : lookup);
  } catch (e) {
    if (e instanceof UnauthenticatedError || e instanceof ForbiddenError || e instanceof NotFoundError) return null;
    throw e;
  }
}
