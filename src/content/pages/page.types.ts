import { ArgsType, Field, ID, InputType, ObjectType } from 'type-graphql';
import { Node } from '../../api/graphql/node';
import { PayloadType } from '../../api/graphql/payload';
import { Connection, ConnectionArgs } from '../../common/relay';
import { DateTimeScalar } from '../../api/graphql/scalars';

@ObjectType('Page', { implements: Node, description: 'A course wiki page.' })
export class PageType extends Node {
  @Field(() => ID, { description: "Numeric id (Canvas's page_id)." })
  _id: string;
  @Field(() => ID)
  courseId: number;
  @Field({ description: 'The slug, unique among the course’s pages.' })
  url: string;
  @Field()
  title: string;
  @Field(() => String, { nullable: true, description: 'Sanitised HTML.' })
  body: string | null;
  @Field({ description: 'active (published), unpublished or deleted' })
  workflowState: string;
  @Field({ description: 'teachers, students, members, public (comma list)' })
  editingRoles: string;
  @Field()
  frontPage: boolean;
  @Field(() => DateTimeScalar, { nullable: true, description: 'Written as studentTodoAt.' })
  todoDate: Date | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const PageConnection = Connection('Page', PageType);

@ArgsType()
export class PagesArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true, description: 'Part of the title; at least 2 characters.' })
  searchTerm?: string | null;
  @Field(() => String, { nullable: true, description: 'title (default), created_at or updated_at' })
  sort?: string | null;
  @Field(() => String, { nullable: true, description: 'asc or desc' })
  order?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Only published (or unpublished) pages; for those who see unpublished pages.' })
  published?: boolean | null;
}

@InputType()
export class PageFieldsInput {
  @Field(() => String, { nullable: true })
  title?: string | null;
  @Field(() => String, { nullable: true, description: 'HTML; sanitised on save.' })
  body?: string | null;
  @Field(() => Boolean, { nullable: true })
  published?: boolean | null;
  @Field(() => Boolean, { nullable: true })
  frontPage?: boolean | null;
  @Field(() => String, { nullable: true })
  editingRoles?: string | null;
  @Field(() => DateTimeScalar, { nullable: true, description: 'The to-do date (read back as todoDate).' })
  studentTodoAt?: Date | null;
  @Field(() => Boolean, { nullable: true, description: 'false clears the to-do date.' })
  studentPlannerCheckbox?: boolean | null;
}

@InputType()
export class CreatePageInput extends PageFieldsInput {
  @Field(() => ID)
  courseId: string;
}

@InputType()
export class UpdatePageInput extends PageFieldsInput {
  @Field(() => ID)
  courseId: string;
  @Field({ description: 'Slug, page_id:<id>, or numeric id.' })
  urlOrId: string;
}

@InputType()
export class PageRefInput {
  @Field(() => ID)
  courseId: string;
  @Field()
  urlOrId: string;
}

export const PagePayload = PayloadType('PagePayload', { page: () => PageType });
