import { ArgsType, Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';
import { ListBound } from '../common/list-bounds';
import { MAX_EMBEDDED_ITEMS } from './module-item-sql';

@ObjectType('CompletionRequirement')
export class CompletionRequirementType {
  @Field({ description: 'must_view, must_submit, must_contribute, min_score, min_percentage or must_mark_done' })
  type: string;
  @Field(() => Float, { nullable: true })
  minScore: number | null;
  @Field(() => Float, { nullable: true })
  minPercentage: number | null;
  @Field(() => Boolean, { nullable: true, description: 'Only when a student’s progress is shown.' })
  completed: boolean | null;
}

@ObjectType('LockInfo')
export class LockInfoType {
  @Field()
  assetString: string;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt: Date | null;
  @Field(() => ID, { nullable: true, description: 'The module that locks it.' })
  contextModuleId: number | null;
  @Field(() => String, { nullable: true })
  contextModuleName: string | null;
}

@ObjectType('ContentDetails')
export class ContentDetailsType {
  @Field(() => Float, { nullable: true })
  pointsPossible: number | null;
  @Field(() => DateTimeScalar, { nullable: true })
  dueAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt: Date | null;
  @Field()
  lockedForUser: boolean;
  @Field(() => String, { nullable: true })
  lockExplanation: string | null;
  @Field(() => LockInfoType, { nullable: true })
  lockInfo: LockInfoType | null;
}

@ObjectType('ModuleItem', { implements: Node })
export class ModuleItemType extends Node {
  @Field(() => ID)
  _id: string;
  @Field(() => ID)
  moduleId: number;
  @Field(() => Int)
  position: number;
  @Field()
  title: string;
  @Field(() => Int)
  indent: number;
  @Field({ description: 'File, Page, Discussion, Assignment, Quiz, SubHeader, ExternalUrl or ExternalTool' })
  type: string;
  @Field(() => ID, { nullable: true })
  contentId: number | null;
  @Field(() => String, { nullable: true })
  htmlUrl: string | null;
  @Field(() => String, { nullable: true, description: 'API URL of the linked object.' })
  url: string | null;
  @Field(() => String, { nullable: true })
  pageUrl: string | null;
  @Field(() => String, { nullable: true })
  externalUrl: string | null;
  @Field(() => Boolean, { nullable: true })
  newTab: boolean | null;
  @Field(() => CompletionRequirementType, { nullable: true })
  completionRequirement: CompletionRequirementType | null;
  @Field(() => ContentDetailsType)
  contentDetails: ContentDetailsType;
  @Field(() => Boolean, { nullable: true, description: 'Only for callers who may see unpublished items.' })
  published: boolean | null;
}

export const ModuleItemConnection = Connection('ModuleItem', ModuleItemType);

@ObjectType('Module', { implements: Node })
export class ModuleType extends Node {
  @Field(() => ID)
  _id: string;
  @Field({ description: 'active or deleted' })
  workflowState: string;
  @Field(() => Int)
  position: number;
  @Field()
  name: string;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt: Date | null;
  @Field()
  requireSequentialProgress: boolean;
  @Field({ description: 'all or one' })
  requirementType: string;
  @ListBound(100)
  @Field(() => [ID])
  prerequisiteModuleIds: number[];
  @Field(() => Int)
  itemsCount: number;
  @Field()
  itemsUrl: string;
  @ListBound(MAX_EMBEDDED_ITEMS)
  @Field(() => [ModuleItemType], { nullable: true, description: 'Null when the module is too large to embed.' })
  items: unknown[] | null;
  @Field(() => String, { nullable: true, description: 'locked, unlocked, started or completed; only for a student’s view.' })
  state: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  completedAt: Date | null;
  @Field(() => Boolean, { nullable: true })
  publishFinalGrade: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Only for callers who may see unpublished modules.' })
  published: boolean | null;
}

export const ModuleConnection = Connection('Module', ModuleType);

@ArgsType()
export class ModulesArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true })
  searchTerm?: string | null;
  @Field(() => ID, { nullable: true, description: 'Show this student’s progress.' })
  studentId?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Whether items will be read (search_term then also matches item titles).' })
  includeItems?: boolean | null;
}

@ArgsType()
export class ModuleItemsArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true })
  searchTerm?: string | null;
  @Field(() => ID, { nullable: true })
  studentId?: string | null;
}

@InputType()
export class ModuleFieldsInput {
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt?: Date | null;
  @Field(() => Int, { nullable: true })
  position?: number | null;
  @Field(() => Boolean, { nullable: true })
  requireSequentialProgress?: boolean | null;
  @Field(() => [ID], { nullable: true, description: 'Only modules at lower positions count; others are ignored.' })
  prerequisiteModuleIds?: string[] | null;
  @Field(() => Boolean, { nullable: true })
  publishFinalGrade?: boolean | null;
  @Field(() => Boolean, { nullable: true })
  published?: boolean | null;
  @Field(() => Int, { nullable: true, description: '1 for requirement type "one"; 0 or null for "all".' })
  requirementCount?: number | null;
}

@InputType()
export class CreateModuleInput extends ModuleFieldsInput {
  @Field(() => ID)
  courseId: string;
}

@InputType()
export class UpdateModuleInput extends ModuleFieldsInput {
  @Field(() => ID)
  courseId: string;
  @Field(() => ID)
  id: string;
}

@InputType()
export class CompletionRequirementInput {
  @Field(() => String, { nullable: true })
  type?: string | null;
  @Field(() => Float, { nullable: true })
  minScore?: number | null;
  @Field(() => Float, { nullable: true })
  minPercentage?: number | null;
}

@InputType()
export class ModuleItemFieldsInput {
  @Field(() => String, { nullable: true })
  title?: string | null;
  @Field(() => Int, { nullable: true })
  position?: number | null;
  @Field(() => Int, { nullable: true })
  indent?: number | null;
  @Field(() => String, { nullable: true })
  externalUrl?: string | null;
  @Field(() => Boolean, { nullable: true })
  newTab?: boolean | null;
  @Field(() => CompletionRequirementInput, { nullable: true })
  completionRequirement?: CompletionRequirementInput | null;
  @Field(() => Boolean, { nullable: true, description: 'Remove the completion requirement.' })
  clearRequirement?: boolean | null;
  @Field(() => Int, { nullable: true })
  iframeWidth?: number | null;
  @Field(() => Int, { nullable: true })
  iframeHeight?: number | null;
}

@InputType()
export class CreateModuleItemInput extends ModuleItemFieldsInput {
  @Field(() => ID)
  courseId: string;
  @Field(() => ID)
  moduleId: string;
  @Field(() => String, { nullable: true, description: 'A ModuleItem type (or Canvas alias such as wiki_page).' })
  type?: string | null;
  @Field(() => ID, { nullable: true, description: 'Required except for ExternalUrl, Page and SubHeader.' })
  contentId?: string | null;
  @Field(() => String, { nullable: true, description: 'Page slug; required for Page.' })
  pageUrl?: string | null;
}

@InputType()
export class UpdateModuleItemInput extends ModuleItemFieldsInput {
  @Field(() => ID)
  courseId: string;
  @Field(() => ID)
  moduleId: string;
  @Field(() => ID)
  id: string;
  @Field(() => Boolean, { nullable: true })
  published?: boolean | null;
  @Field(() => ID, { nullable: true, description: 'Move the item to another module of the course.' })
  targetModuleId?: string | null;
}

@InputType()
export class ModuleItemRefInput {
  @Field(() => ID)
  courseId: string;
  @Field(() => ID)
  moduleId: string;
  @Field(() => ID)
  id: string;
}

export const ModulePayload = PayloadType('ModulePayload', { module: () => ModuleType });
export const ModuleItemPayload = PayloadType('ModuleItemPayload', { moduleItem: () => ModuleItemType });
export const RedirectPayload = PayloadType('RedirectPayload', { url: () => String });
export const MessagePayload = PayloadType('MessagePayload', { message: () => String });
