import { Field, ObjectType } from 'type-graphql';
import { FieldError, ValidationError } from '../common/errors';

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
