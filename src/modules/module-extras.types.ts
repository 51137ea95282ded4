import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { AssignmentType } from '../content/assignments/assignment.types';
import { Node } from '../api/graphql/node';
import { DateTimeScalar } from '../api/graphql/scalars';
import { UserType } from '../users/user.types';
import { PayloadType } from '../api/graphql/payload';
import { Connection } from '../common/relay';
import { ModuleItemType, ModuleType } from './module.types';
import { ListBound } from '../common/list-bounds';
import { MAX_EMBEDDED_ITEMS } from './module-item-sql';

@ObjectType('AssignmentSet')
export class AssignmentSetType {
  @Field(() => ID)
  id: number;
  @ListBound(100)
  @Field(() => [ID])
  assignmentIds: number[];
}

@ObjectType('MasteryPath', { description: 'Where a student stands on a Mastery Paths trigger assignment.' })
export class MasteryPathType {
  @Field()
  locked: boolean;
  @ListBound(10)
  @Field(() => [AssignmentSetType])
  assignmentSets: AssignmentSetType[];
  @Field(() => ID, { nullable: true })
  selectedSetId: number | null;
  @Field()
  awaitingChoice: boolean;
  @Field()
  stillProcessing: boolean;
  @Field()
  modulesUrl: string;
  @Field()
  chooseUrl: string;
  @Field()
  modulesTabDisabled: boolean;
}

@ObjectType('ModuleItemSequenceNode')
export class SequenceNodeType {
  @Field(() => ModuleItemType, { nullable: true })
  prev: unknown;
  @Field(() => ModuleItemType)
  current: unknown;
  @Field(() => ModuleItemType, { nullable: true })
  next: unknown;
  @Field(() => MasteryPathType, { nullable: true })
  masteryPath: MasteryPathType | null;
}

@ObjectType('ModuleItemSequence')
export class SequenceType {
  @ListBound(10) // MAX_SEQUENCE_NODES
  @Field(() => [SequenceNodeType], { description: 'At most 10, one per appearance of the asset.' })
  items: SequenceNodeType[];
  @ListBound(20) // two modules per sequence node at most
  @Field(() => [ModuleType])
  modules: unknown[];
}

@ObjectType('OverrideTarget')
export class OverrideTargetType {
  @Field(() => ID)
  id: number;
  @Field()
  name: string;
}

@ObjectType('OverrideGroup')
export class OverrideGroupType {
  @Field(() => ID)
  id: number;
  @Field()
  nonCollaborative: boolean;
}

@ObjectType('ModuleAssignmentOverride', { implements: Node })
export class ModuleOverrideType extends Node {
  @Field(() => ID)
  _id: string;
  @Field(() => ID)
  moduleId: number;
  @Field()
  title: string;
  @Field(() => [OverrideTargetType], { nullable: true, description: 'Only for an ad-hoc set of students.' })
  students: OverrideTargetType[] | null;
  @Field(() => OverrideTargetType, { nullable: true, description: 'Only for a section override.' })
  courseSection: OverrideTargetType | null;
  @Field(() => OverrideGroupType, { nullable: true, description: 'Only for a differentiation tag override.' })
  group: OverrideGroupType | null;
}

export const ModuleOverrideConnection = Connection('ModuleAssignmentOverride', ModuleOverrideType);

@InputType()
export class ModuleOverrideInput {
  @Field(() => ID, { nullable: true, description: 'An existing override to update; absent creates one.' })
  id?: string | null;
  @Field(() => String, { nullable: true })
  title?: string | null;
  @Field(() => [ID], { nullable: true })
  studentIds?: string[] | null;
  @Field(() => ID, { nullable: true })
  courseSectionId?: string | null;
  @Field(() => ID, { nullable: true })
  groupId?: string | null;
}

export const OkPayload = PayloadType('OkPayload', { ok: () => Boolean });

@ObjectType('ScoreRange')
export class ScoreRangeType {
  @Field(() => Float)
  lowerBound: number;
  @Field(() => Float)
  upperBound: number;
  @ListBound(10)
  @Field(() => [AssignmentSetType])
  assignmentSets: AssignmentSetType[];
}

@ObjectType('MasteryPathRule')
export class MasteryPathRuleType {
  @Field(() => ID)
  _id: string;
  @Field(() => ID)
  triggerAssignmentId: number;
  @ListBound(10)
  @Field(() => [ScoreRangeType])
  scoringRanges: ScoreRangeType[];
}

@InputType()
export class AssignmentSetInput {
  @Field(() => [ID])
  assignmentIds: string[];
}

@InputType()
export class ScoreRangeInput {
  @Field(() => Float, { description: 'Percent of points possible, inclusive.' })
  lowerBound: number;
  @Field(() => Float, { description: 'Percent of points possible, exclusive (100 includes a full score).' })
  upperBound: number;
  @Field(() => [AssignmentSetInput])
  assignmentSets: AssignmentSetInput[];
}

export const MasteryPathRulePayload = PayloadType('MasteryPathRulePayload', { rule: () => MasteryPathRuleType });

export const SelectMasteryPathPayload = PayloadType('SelectMasteryPathPayload', {
  assignmentIds: { type: () => [ID], maxItems: 100 },
  assignments: { type: () => [AssignmentType], description: 'The chosen assignments (published ones), in the set’s order.', maxItems: 100 },
  moduleItems: { type: () => [ModuleItemType], description: 'Items of this module linking the chosen assignments.', maxItems: 100 },
});

@ObjectType('MetRequirement', { description: 'A requirement (or recorded action) met on a module item.' })
export class MetRequirementType {
  @Field(() => ID)
  moduleItemId: number;
  @Field()
  type: string;
}

@ObjectType('ModuleProgression', { description: 'A student’s standing in a module (Canvas’s context module progression).' })
export class ModuleProgressionType {
  @Field(() => ID)
  moduleId: number;
  @Field(() => ID)
  userId: number;
  @Field(() => UserType, { nullable: true })
  student: unknown;
  @Field({ description: 'locked, unlocked, started or completed' })
  state: string;
  @Field(() => DateTimeScalar, { nullable: true })
  completedAt: Date | null;
  @Field(() => Int, { nullable: true, description: 'Sequential modules: position of the first item still to do.' })
  currentPosition: number | null;
  @ListBound(MAX_EMBEDDED_ITEMS)
  @Field(() => [MetRequirementType])
  requirementsMet: MetRequirementType[];
}

export const ModuleProgressionConnection = Connection('ModuleProgression', ModuleProgressionType);
