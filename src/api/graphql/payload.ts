import { ClassType, Field, ObjectType } from 'type-graphql';
import { FieldError, ValidationError } from '../../common/errors';
import { ListBound } from '../../common/list-bounds';

/** A validation problem in a mutation payload, as Canvas's GraphQL reports them. */
@ObjectType('ValidationError')
export class ValidationErrorType {
  @Field()
  attribute: string;

  @Field({ description: 'Canvas validation code such as blank, taken, invalid.' })
  type: string;

  @Field()
  message: string;
}

/**
 * Runs a mutation's service call; validation failures become `errors` in the payload (nothing was
 * stored), every other domain error propagates as a GraphQL error with its code.
 */
export async function mutationPayload<T extends object>(fn: () => Promise<T>): Promise<T & { errors: FieldError[] | null }> {
  try {
    return { ...(await fn()), errors: null };
  } catch (e) {
    if (e instanceof ValidationError) return { errors: e.fields } as T & { errors: FieldError[] };
    throw e;
  }
}

/** One field of a mutation payload: its type, and a description for the schema when it needs one. */
/** A list field gives `maxItems`, its true maximum (list-bounds.ts). */
export type PayloadField = (() => unknown) | { type: () => unknown; description?: string; maxItems?: number };

/**
 * A mutation payload type named `name`: the given (nullable) result fields plus Canvas's
 * `errors { attribute type message }`. Every mutation answers this shape, so it is built in one place.
 */
export function PayloadType(name: string, fields: Record<string, PayloadField>): new () => Record<string, unknown> {
  @ObjectType(name)
  class Payload {
    @ListBound(1000)
    @Field(() => [ValidationErrorType], { nullable: true })
    errors: ValidationErrorType[] | null;
  }
  for (const [key, field] of Object.entries(fields)) {
    const spec = typeof field === 'function' ? { type: field } : field;
    Field(spec.type as () => ClassType, { nullable: true, ...(spec.description ? { description: spec.description } : {}) })(Payload.prototype, key);
    if ('maxItems' in spec && spec.maxItems !== undefined) ListBound(spec.maxItems)(Payload.prototype, key);
  }
  return Payload as unknown as new () => Record<string, unknown>;
}
