import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('BlackoutDate', { implements: Node, description: 'A date range of a course or account on which course pacing schedules nothing.' })
export class BlackoutDateType extends Node {
  @Field(() => ID)
  _id: string;
  @Field({ description: 'Course or Account' })
  contextType: string;
  @Field(() => ID)
  contextId: number;
  @Field(() => ID)
  rootAccountId: number;
  @Field({ description: 'First day, YYYY-MM-DD.' })
  startDate: string;
  @Field({ description: 'Last day (inclusive), YYYY-MM-DD; never before startDate.' })
  endDate: string;
  @Field()
  eventTitle: string;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

@ObjectType('UnsavedBlackoutDate', { description: 'A blackout date initialised for a context and not stored (Canvas\'s "new").' })
export class UnsavedBlackoutDateType {
  @Field(() => ID, { nullable: true, description: 'Always null: the record is not stored.' })
  _id: string | null;
  @Field()
  contextType: string;
  @Field(() => ID)
  contextId: number;
  @Field(() => ID, { nullable: true })
  rootAccountId: number | null;
  @Field(() => String, { nullable: true })
  startDate: string | null;
  @Field(() => String, { nullable: true })
  endDate: string | null;
  @Field(() => String, { nullable: true })
  eventTitle: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  createdAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  updatedAt: Date | null;
}

@InputType()
export class BlackoutDateFieldsInput {
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD; required on create.' })
  startDate?: string | null;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, not before startDate; required on create.' })
  endDate?: string | null;
  @Field(() => String, { nullable: true, description: 'At most 255 characters; required on create.' })
  eventTitle?: string | null;
}

@InputType()
export class CreateBlackoutDateInput extends BlackoutDateFieldsInput {
  @Field({ description: 'Course or Account' })
  contextType: string;
  @Field(() => ID)
  contextId: string;
}

@InputType()
export class UpdateBlackoutDateInput extends BlackoutDateFieldsInput {
  @Field(() => ID)
  id: string;
  @Field(() => String, { nullable: true, description: 'With contextId: the date must belong to this context (else NOT_FOUND).' })
  contextType?: string | null;
  @Field(() => ID, { nullable: true })
  contextId?: string | null;
}

@InputType()
export class DeleteBlackoutDateInput {
  @Field(() => ID)
  id: string;
  @Field(() => String, { nullable: true, description: 'With contextId: the date must belong to this context (else NOT_FOUND).' })
  contextType?: string | null;
  @Field(() => ID, { nullable: true })
  contextId?: string | null;
}

@InputType({ description: 'One wanted blackout date: with an id it updates that date, without one it creates a date.' })
export class BlackoutDateEntryInput extends BlackoutDateFieldsInput {
  @Field(() => ID, { nullable: true })
  id?: string | null;
}

@InputType()
export class ReplaceBlackoutDatesInput {
  @Field({ description: 'Course or Account' })
  contextType: string;
  @Field(() => ID)
  contextId: string;
  @Field(() => [BlackoutDateEntryInput], { description: 'The complete wanted set; stored dates not listed are deleted.' })
  blackoutDates: BlackoutDateEntryInput[];
}

export const BlackoutDatePayload = PayloadType('BlackoutDatePayload', { blackoutDate: () => BlackoutDateType });

export const BlackoutDatesPayload = PayloadType('BlackoutDatesPayload', {
  blackoutDates: { type: () => [BlackoutDateType], description: 'Every date of the context after the change, by start date.', maxItems: 1000 },
});
