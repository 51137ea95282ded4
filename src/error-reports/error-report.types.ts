import { GraphQLJSONObject } from 'graphql-scalars';
import { ArgsType, Field, ID, InputType, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { ValidationErrorType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';
import { ListBound } from '../common/list-bounds';

@ObjectType('ErrorReport', { implements: Node, description: 'A problem report from the help dialog; site admins only.' })
export class ErrorReportType extends Node {
  @Field(() => ID)
  _id: string;
  @Field({ description: 'The summary, like a mail subject.' })
  subject: string;
  @Field(() => String, { nullable: true })
  comments: string | null;
  @Field(() => String, { nullable: true, description: 'just_a_comment, not_urgent, workaround_possible, blocks_what_i_need_to_do or extreme_critical_emergency' })
  userPerceivedSeverity: string | null;
  @Field(() => String, { nullable: true })
  email: string | null;
  @Field(() => String, { nullable: true, description: 'The page the problem was reported on.' })
  url: string | null;
  @Field(() => String, { nullable: true, description: '[type]_[id] of what the reporter was working with, e.g. course_1.' })
  contextAssetString: string | null;
  @Field(() => String, { nullable: true, description: "Comma-separated roles of the reporter (server-derived), e.g. user,teacher,admin." })
  userRoles: string | null;
  @Field(() => String, { nullable: true })
  userAgent: string | null;
  @Field(() => String, { nullable: true })
  requestId: string | null;
  @Field(() => ID, { nullable: true, description: 'The reporter; null for an anonymous report.' })
  userId: number | null;
  @Field(() => ID, { nullable: true, description: 'Who was masquerading as the reporter, if anyone.' })
  realUserId: number | null;
  @Field(() => ID, { nullable: true })
  accountId: number | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
}

export const ErrorReportConnection = Connection('ErrorReport', ErrorReportType);

@ArgsType()
export class ErrorReportsArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true, description: 'Only reports of this user_perceived_severity.' })
  severity?: string | null;
}

@InputType()
export class CreateErrorReportInput {
  @Field(() => String, { nullable: true, description: 'Required.' })
  subject?: string | null;
  @Field(() => String, { nullable: true })
  comments?: string | null;
  @Field(() => String, { nullable: true })
  email?: string | null;
  @Field(() => String, { nullable: true, description: 'An http(s) URL; otherwise the Referer is recorded.' })
  url?: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: "Metadata about the client's environment; when absent the server records the request's." })
  httpEnv?: Record<string, unknown> | null;
  @Field(() => String, { nullable: true })
  userPerceivedSeverity?: string | null;
  @Field(() => String, { nullable: true })
  contextAssetString?: string | null;
}

@ObjectType()
export class CreateErrorReportPayload {
  @Field({ description: 'True once the report is stored.' })
  logged: boolean;
  @Field(() => ID, { nullable: true })
  errorReportId: string | null;
  @ListBound(1000)
  @Field(() => [ValidationErrorType], { nullable: true })
  errors: ValidationErrorType[] | null;
}
