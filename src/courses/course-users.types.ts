import { ArgsType, Field, ID } from 'type-graphql';
import { ConnectionArgs } from '../common/relay';

@ArgsType()
export class CourseUsersArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true, description: 'Partial name (or, for staff, login or SIS id), or a user id; 2 characters or more.' })
  searchTerm?: string | null;

  @Field(() => [String], { nullable: true, description: 'teacher, student, student_view, ta, observer or designer.' })
  enrollmentTypes?: string[] | null;

  @Field(() => ID, { nullable: true, description: 'Only people holding this role (the built-in roles: 3 student, 4 teacher, 5 TA, 6 designer, 7 observer).' })
  enrollmentRoleId?: string | null;

  @Field(() => [String], { nullable: true, description: 'active, invited, rejected, completed or inactive; default the current ones (active and invited).' })
  enrollmentStates?: string[] | null;

  @Field(() => [ID], { nullable: true, description: 'Only these users.' })
  userIds?: string[] | null;

  @Field(() => String, { nullable: true, description: 'username (default), last_login, email or sis_id.' })
  sort?: string | null;

  @Field(() => String, { nullable: true, description: 'asc (default) or desc.' })
  order?: string | null;
}
