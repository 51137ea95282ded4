import 'reflect-metadata';
import { GraphQLSchema } from 'graphql';
import { buildSchemaSync, NonEmptyArray } from 'type-graphql';
import { AccountResolver } from '../accounts/account.resolver';
import { AccessTokenResolver } from '../auth/access-token.resolver';
import { CourseResolver } from '../courses/course.resolver';
import { EnrollmentResolver } from '../courses/enrollment.resolver';
import { SectionResolver } from '../courses/section.resolver';
import { UserResolver } from '../users/user.resolver';
import { GroupCategoryResolver } from '../groups/group-category.resolver';
import { GroupMembershipResolver } from '../groups/group-membership.resolver';
import { GroupResolver } from '../groups/group.resolver';
import { NodeResolverRoot } from './node.resolver';
import { DateTimeScalar } from './scalars';

/** Every resolver of the schema; feature areas add theirs here. */
export const resolvers: NonEmptyArray<Function> = [
  NodeResolverRoot,
  AccountResolver,
  UserResolver,
  AccessTokenResolver,
  CourseResolver,
  SectionResolver,
  EnrollmentResolver,
  GroupCategoryResolver,
  GroupResolver,
  GroupMembershipResolver,
];

let cached: GraphQLSchema | undefined;

export function buildAppSchema(): GraphQLSchema {
  cached ??= buildSchemaSync({
    resolvers,
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    validate: { forbidUnknownValues: false },
    emitSchemaFile: false,
  });
  return cached;
}
