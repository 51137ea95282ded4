import { randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { DemoExtension } from '../courses/demo-world';
import { Assignment } from '../content/assignments/assignment.entity';
import { ExternalTool } from '../content/external-tools/external-tool.entity';
import { WikiPage } from '../content/pages/page.entity';
import { Quiz } from '../content/quizzes/quiz.entity';
import { Submission } from '../content/submissions/submission.entity';
import { nowToSecond } from '../db/columns';
import { DiscussionParticipant } from '../discussions/discussion-participant.entity';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import { nextActivitySeq } from '../discussions/topic-publishing';
import { Attachment } from '../files/attachment.entity';
import { courseFileContext } from '../files/file-context';
import { rootFolder } from '../files/folders';
import { FileStore, newStorageKey } from '../storage';
import { ItemType, ModuleItem } from './module-item.entity';
import { ContextModule } from './module.entity';
import type { RequirementType } from './progression-evaluator';
import { ModuleProgression } from './progression.entity';

export const DEMO_MODULES = ['Week 1: Getting Started', 'Week 2: Cells', 'Week 3: Genetics'];
export const DEMO_FILE = 'lab-safety.txt';
const FILE_TEXT = 'Lab safety\n\n1. Goggles on.\n2. No food in the lab.\n3. Report every spill.\n';

/**
 * The demo's modules, with undated content so the planner stays as its own demo seeds it:
 * - "Week 1: Getting Started" (published): a sub-header, a welcome page (must view), a worksheet
 *   assignment (must submit), an introductions discussion (must contribute) and, when the CLI knows
 *   where files live, a lab-safety file (must view);
 * - "Week 2: Cells" (published, after Week 1, sequential): an external reading (must view), a
 *   virtual-microscope external tool, a graded quiz (min score 3), a graded discussion (must submit:
 *   a student's post turns in its assignment) and a sub-header;
 * - "Week 3: Genetics" (unpublished, after Week 2): a coming-soon sub-header.
 * The first student has viewed the welcome page and submitted the worksheet: Week 1 is started and
 * Week 2 still locked (their progressions are stored stale, so the first read evaluates them).
 */
export const modulesDemo: DemoExtension = {
  name: 'modules',
  async seed(em, world, ctx) {
    const course = world.course;
    const teacher = world.users.get('teacher') ?? null;
    const student = world.users.get('student1') ?? null;
    const now = nowToSecond();

    const page = await em.getRepository(WikiPage).save(
      em.getRepository(WikiPage).create({
        courseId: course.id,
        title: 'Welcome to Biology',
        url: 'welcome-to-biology',
        body: '<p>Start here: how the course works, and what each week holds.</p>',
        workflowState: 'active',
        editingRoles: 'teachers',
        frontPage: false,
        todoDate: null,
        userId: teacher?.id ?? null,
      }),
    );
    const worksheet = await assignment(em, course.id, 'Cell structure worksheet', 10, 'online_text_entry,online_upload');
    const quizAssignment = await assignment(em, course.id, 'Cells check-in', 5, 'online_quiz');
    const quiz = await em.getRepository(Quiz).save(
      em.getRepository(Quiz).create({
        courseId: course.id,
        title: 'Cells check-in',
        description: '<p>Five quick questions on cell parts.</p>',
        quizType: 'assignment',
        assignmentId: quizAssignment.id,
        timeLimit: 10,
        allowedAttempts: 2,
        scoringPolicy: 'keep_highest',
        shuffleAnswers: false,
        accessCode: null,
        pointsPossible: 5,
        dueAt: null,
        unlockAt: null,
        lockAt: null,
        workflowState: 'available',
      }),
    );
    const newTopic = async (title: string, message: string, assignmentId: number | null) =>
      em.getRepository(DiscussionTopic).save(
        em.getRepository(DiscussionTopic).create({
          contextType: 'Course',
          contextId: course.id,
          userId: teacher?.id ?? null,
          title,
          message,
          isAnnouncement: false,
          workflowState: 'active',
          discussionType: 'side_comment',
          postedAt: now,
          delayedPostAt: null,
          lockAt: null,
          locked: false,
          lastReplyAt: null,
          activityAt: now,
          activitySeq: await nextActivitySeq(em),
          todoDate: null,
          assignmentId,
          pinned: false,
          position: null,
          requireInitialPost: false,
          deletedAt: null,
        }),
      );
    const topic = await newTopic('Introduce yourself', '<p>Tell the class one thing you hope to learn this term.</p>', null);
    // A graded discussion: its assignment (discussion_topic) carries the points; posting turns it in.
    const debateMessage = '<p>Is a virus alive? Argue one side in a paragraph.</p>';
    const debateAssignment = await assignment(em, course.id, 'Cell debate: is a virus alive?', 5, 'discussion_topic', debateMessage);
    const debate = await newTopic(debateAssignment.name, debateMessage, debateAssignment.id);
    if (teacher) {
      const participants = em.getRepository(DiscussionParticipant);
      await participants.save([topic, debate].map((t) => participants.create({ discussionTopicId: t.id, userId: teacher.id, workflowState: 'read', lastReadEntryId: 0 })));
    }
    const tool = await em.getRepository(ExternalTool).save(
      em.getRepository(ExternalTool).create({
        courseId: course.id,
        name: 'Virtual Microscope',
        description: 'Look at prepared slides at up to 1000x.',
        url: 'https://microscope.example.com/launch',
        domain: null,
        consumerKey: 'demo-microscope',
        sharedSecret: randomBytes(16).toString('hex'),
        privacyLevel: 'public',
        customFields: null,
        workflowState: 'active',
      }),
    );
    const file = ctx.files ? await courseFile(em, world.course, teacher?.id ?? null, ctx.files) : null;

    const modules = em.getRepository(ContextModule);
    const newModule = (name: string, position: number, fields: Partial<ContextModule> = {}) =>
      modules.save(
        modules.create({
          courseId: course.id,
          name,
          position,
          unlockAt: null,
          requireSequentialProgress: false,
          requirementCount: null,
          publishFinalGrade: false,
          prerequisites: null,
          workflowState: 'active',
          deletedAt: null,
          ...fields,
        }),
      );
    const week1 = await newModule(DEMO_MODULES[0], 1);
    const week2 = await newModule(DEMO_MODULES[1], 2, { requireSequentialProgress: true, prerequisites: JSON.stringify([week1.id]) });
    const week3 = await newModule(DEMO_MODULES[2], 3, { workflowState: 'unpublished', prerequisites: JSON.stringify([week2.id]) });

    const items = em.getRepository(ModuleItem);
    const add = async (module: ContextModule, fields: { type: ItemType; title: string; contentId?: number | null; url?: string | null; requirement?: RequirementType; minScore?: number; newTab?: boolean; published?: boolean }) => {
      const position = (await items.countBy({ moduleId: module.id })) + 1;
      return items.save(
        items.create({
          courseId: course.id,
          moduleId: module.id,
          contentType: fields.type,
          contentId: fields.contentId ?? null,
          title: fields.title,
          indent: fields.type === 'SubHeader' ? 0 : 1,
          position,
          url: fields.url ?? null,
          newTab: fields.type === 'ExternalTool' ? (fields.newTab ?? false) : null,
          iframeWidth: null,
          iframeHeight: null,
          requirementType: fields.requirement ?? null,
          requirementMinScore: fields.minScore ?? null,
          requirementMinPercentage: null,
          workflowState: fields.published === false ? 'unpublished' : 'active',
        }),
      );
    };
    await add(week1, { type: 'SubHeader', title: 'Start here' });
    const welcome = await add(week1, { type: 'Page', title: page.title, contentId: page.id, requirement: 'must_view' });
    await add(week1, { type: 'Assignment', title: worksheet.name, contentId: worksheet.id, requirement: 'must_submit' });
    await add(week1, { type: 'Discussion', title: topic.title, contentId: topic.id, requirement: 'must_contribute' });
    if (file) await add(week1, { type: 'File', title: file.displayName, contentId: file.id, requirement: 'must_view' });
    await add(week2, { type: 'ExternalUrl', title: 'Cells Alive! (reading)', url: 'https://www.cellsalive.com/cells/cell_model.htm', requirement: 'must_view' });
    await add(week2, { type: 'ExternalTool', title: tool.name, contentId: tool.id, url: tool.url, newTab: true });
    await add(week2, { type: 'Quiz', title: quiz.title, contentId: quiz.id, requirement: 'min_score', minScore: 3 });
    await add(week2, { type: 'Discussion', title: debate.title, contentId: debate.id, requirement: 'must_submit' });
    await add(week2, { type: 'SubHeader', title: 'Optional: go further' });
    await add(week3, { type: 'SubHeader', title: 'Coming soon', published: false });

    if (!student) return;
    // The first student's work: a submitted worksheet, and a view of the welcome page.
    await em.getRepository(Submission).save(
      em.getRepository(Submission).create({
        assignmentId: worksheet.id,
        userId: student.id,
        courseId: course.id,
        workflowState: 'submitted',
        submissionType: 'online_text_entry',
        body: '<p>Nucleus, mitochondria, ribosomes, cell membrane.</p>',
        url: null,
        attachmentIds: null,
        attempt: 1,
        submittedAt: now,
        score: null,
        grade: null,
        gradedAt: null,
        graderId: null,
        excused: false,
        latePolicyStatus: null,
        gradeMatchesCurrentSubmission: true,
        quizSubmissionId: null,
      }),
    );
    const progressions = em.getRepository(ModuleProgression);
    const progression = (module: ContextModule, state: ModuleProgression['state'], met: { id: number; type: RequirementType }[]) =>
      progressions.create({ courseId: course.id, moduleId: module.id, userId: student.id, state, requirementsMet: JSON.stringify(met), completedAt: null, currentPosition: null, lockedItems: null, stale: true });
    await progressions.save([progression(week1, 'started', [{ id: welcome.id, type: 'must_view' }]), progression(week2, 'locked', [])]);
  },
};

function assignment(em: EntityManager, courseId: number, name: string, points: number, submissionTypes: string, description = `<p>${name}.</p>`): Promise<Assignment> {
  return em.getRepository(Assignment).save(
    em.getRepository(Assignment).create({
      courseId,
      name,
      description,
      pointsPossible: points,
      gradingType: 'points',
      submissionTypes,
      dueAt: null,
      unlockAt: null,
      lockAt: null,
      position: 1,
      workflowState: 'published',
    }),
  );
}

/** An available course file in the course's root folder, its bytes written to the file store. */
async function courseFile(em: EntityManager, course: Parameters<typeof courseFileContext>[0], userId: number | null, files: FileStore): Promise<Attachment> {
  const folder = await rootFolder(em, courseFileContext(course));
  const uuid = randomUUID();
  const key = newStorageKey(uuid);
  const bytes = Buffer.from(FILE_TEXT);
  await files.put(key, bytes, { size: bytes.length, contentType: 'text/plain' });
  const now = nowToSecond();
  return em.getRepository(Attachment).save(
    em.getRepository(Attachment).create({
      contextType: 'Course',
      contextId: course.id,
      rootAccountId: course.rootAccountId,
      folderId: folder.id,
      userId,
      displayName: DEMO_FILE,
      filename: DEMO_FILE,
      contentType: 'text/plain',
      size: bytes.length,
      uuid,
      storageKey: key,
      onDuplicate: 'rename',
      workflowState: 'available',
      uploadedAt: now,
      deletedAt: null,
    }),
  );
}
