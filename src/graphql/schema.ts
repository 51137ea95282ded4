import 'reflect-metadata';
import { GraphQLSchema } from 'graphql';
import { getMetadataStorage as getValidationStorage, validateOrReject, ValidatorOptions } from 'class-validator';
import { ArgumentValidationError, buildSchemaSync, getMetadataStorage, NonEmptyArray } from 'type-graphql';
import { AccountResolver } from '../accounts/account.resolver';
import { AccessTokenResolver } from '../auth/access-token.resolver';
import { CourseResolver } from '../courses/course.resolver';
import { EnrollmentResolver } from '../courses/enrollment.resolver';
import { SectionResolver } from '../courses/section.resolver';
import { UserResolver } from '../users/user.resolver';
import { GroupCategoryResolver } from '../groups/group-category.resolver';
import { GroupMembershipResolver } from '../groups/group-membership.resolver';
import { GroupResolver } from '../groups/group.resolver';
import { FileResolver, GroupFilesResolver } from '../files/file.resolver';
import { BlackoutDateResolver, CoursePacingResolver } from '../blackout-dates/blackout-date.resolver';
import { ErrorReportResolver } from '../error-reports/error-report.resolver';
import { QuizExtensionResolver, QuizExtensionsFieldResolver } from '../quiz-extensions/quiz-extension.resolver';
import { ModuleItemResolver } from '../modules/module-item.resolver';
import { ModuleProgressionResolver, ModuleResolver } from '../modules/module.resolver';
import { MasteryPathRuleResolver, ModuleOverrideResolver, SequenceResolver } from '../modules/module-extras.resolver';
import { discussionResolvers } from '../discussions/discussion.resolver';
import { contentResolvers } from '../content/content.resolvers';
import { ToolProxyResolver } from '../lti/tool-proxy.resolver';
import { WebhookSubscriptionResolver } from '../webhooks/subscriptions.resolver';
import { WebhookDeliveryResolver } from '../webhooks/webhook-delivery.resolver';
import { schemaPubSub } from '../messaging/pubsub';
import { plannerResolvers } from '../planner/planner.resolver';
import { NodeResolverRoot } from './node.resolver';
import { moduleGraphResolvers } from '../modules/module-graph.resolver';
import { groupGraphResolvers } from '../groups/group-graph.resolver';
import { courseGraphResolvers } from '../courses/course-graph.resolver';
import { blackoutDateGraphResolvers } from '../blackout-dates/blackout-date-graph.resolver';
import { CourseQuizExtensionsResolver } from '../quiz-extensions/quiz-extension-graph.resolver';
import { UserPlannerResolver } from '../planner/planner-graph.resolver';
import { resolveNodeIdsDirectly } from '../api/graphql/node';
import { DateTimeScalar } from '../api/graphql/scalars';
import { instrumentSchema } from './budget';

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
  ...discussionResolvers,
  ...contentResolvers,
  FileResolver,
  GroupFilesResolver,
  BlackoutDateResolver,
  CoursePacingResolver,
  ErrorReportResolver,
  QuizExtensionResolver,
  QuizExtensionsFieldResolver,
  ModuleResolver,
  ModuleProgressionResolver,
  ModuleItemResolver,
  SequenceResolver,
  MasteryPathRuleResolver,
  ModuleOverrideResolver,
  ...plannerResolvers,
  WebhookDeliveryResolver,
  ToolProxyResolver,
  WebhookSubscriptionResolver,
  // The navigable graph: nested lists of each object, through the same checked service calls.
  ...moduleGraphResolvers,
  ...groupGraphResolvers,
  ...courseGraphResolvers,
  ...blackoutDateGraphResolvers,
  CourseQuizExtensionsResolver,
  UserPlannerResolver,
];

let cached: GraphQLSchema | undefined;

/**
 * Plain @Field properties resolve by GraphQL's default property read (issue 11): type-graphql would
 * otherwise wrap each in a middleware-running function, per field and per row, and graphql-jit can
 * read a property inline where there is no resolver. Fields with a @FieldResolver keep theirs (it wins
 * over `simple`); fields with middlewares, roles or a schema name of their own keep the wrapper.
 */
function plainFieldsResolveDirectly(): void {
  for (const f of getMetadataStorage().fields) {
    if (f.simple === undefined && !f.middlewares?.length && !f.roles?.length && f.schemaName === f.name) f.simple = true;
  }
}

/**
 * Argument validation as type-graphql's own (class-validator on object arguments, missing properties
 * skipped, unknown values allowed, failures as ArgumentValidationError), without its per-call
 * `require('class-validator')` — a module resolution on every object or list argument of every field
 * and row, which profiles showed on hot lists (issue 11) — and with nothing to do for lists of scalars.
 */
const VALIDATOR_OPTIONS: ValidatorOptions = { forbidUnknownValues: false, skipMissingProperties: true };
const validatable = (v: unknown): v is object => v !== null && typeof v === 'object';

type QuickCheck = (o: Record<string, unknown>) => boolean;
const quickChecks = new Map<unknown, QuickCheck | null>();

/**
 * A class's rules as a plain function when every rule is a numeric @Min/@Max of a property (as on
 * ConnectionArgs.first): true when the object passes them all. class-validator assembles its rules
 * from metadata on every call, which cost more than the rest of a small list request's arguments
 * (issue 11); it still runs when a check fails, so failures are worded exactly as before. Null for
 * classes with other rules: those always go to class-validator.
 */
function quickCheckFor(ctor: unknown): QuickCheck | null {
  if (quickChecks.has(ctor)) return quickChecks.get(ctor)!;
  const rules = typeof ctor === 'function' ? getValidationStorage().getTargetValidationMetadatas(ctor, '', true, false) : [];
  const simple = rules.every((r) => r.type === 'customValidation' && (r.name === 'min' || r.name === 'max') && !r.each && !r.groups?.length && typeof r.constraints?.[0] === 'number');
  const check: QuickCheck | null = simple
    ? (o) =>
        rules.every((r) => {
          const v = o[r.propertyName];
          // skipMissingProperties: an absent or null argument is not checked.
          if (v == null) return true;
          return typeof v === 'number' && (r.name === 'min' ? v >= r.constraints[0] : v <= r.constraints[0]);
        })
    : null;
  quickChecks.set(ctor, check);
  return check;
}

const passesQuickly = (o: object): boolean => quickCheckFor(o.constructor)?.(o as Record<string, unknown>) === true;

async function validateArgument(value: unknown): Promise<void> {
  if (!validatable(value)) return;
  try {
    if (Array.isArray(value)) {
      const objects = value.filter((o) => validatable(o) && !passesQuickly(o));
      if (objects.length) await Promise.all(objects.map((o) => validateOrReject(o, VALIDATOR_OPTIONS)));
    } else if (!passesQuickly(value)) await validateOrReject(value, VALIDATOR_OPTIONS);
  } catch (err) {
    throw new ArgumentValidationError(err as never);
  }
}

export function buildAppSchema(): GraphQLSchema {
  if (cached) return cached;
  plainFieldsResolveDirectly();
  cached = buildSchemaSync({
    resolvers,
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    validateFn: validateArgument,
    emitSchemaFile: false,
    pubSub: schemaPubSub,
  });
  resolveNodeIdsDirectly(cached);
  // Execution budget and list bounds (issue 19): counted resolvers and cut lists, on every door.
  instrumentSchema(cached);
  return cached;
}
