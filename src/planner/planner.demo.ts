import type { DemoExtension } from '../courses/demo-world';
import { Assignment } from '../content/assignments/assignment.entity';
import { WikiPage } from '../content/pages/page.entity';
import { Quiz } from '../content/quizzes/quiz.entity';
import { DiscussionParticipant } from '../discussions/discussion-participant.entity';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import { PlannerNote } from './planner-note.entity';
import { PlannerOverride } from './planner-override.entity';

export const DEMO_PLANNER_ASSIGNMENT = 'Lab report: enzymes';
export const DEMO_PLANNER_NOTE = 'Buy lab goggles';

/** `days` from now at `hour`:00 UTC. */
function inDays(days: number, hour: number): Date {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  d.setUTCHours(hour, 0, 0, 0);
  return d;
}

/**
 * The demo's planner: dated content in the course (an assignment, a practice quiz, a reading page and
 * a discussion with to-do dates within the next week), the first student's notes (one of their own,
 * one linked to the assignment) and an override marking the reading done.
 */
export const plannerDemo: DemoExtension = {
  name: 'planner',
  async seed(em, world) {
    const course = world.course;
    const teacher = world.users.get('teacher');
    const student = world.users.get('student1');
    const assignment = await em.getRepository(Assignment).save(
      em.getRepository(Assignment).create({
        courseId: course.id,
        name: DEMO_PLANNER_ASSIGNMENT,
        description: '<p>Write up the enzyme activity lab.</p>',
        pointsPossible: 20,
        gradingType: 'points',
        submissionTypes: 'online_text_entry,online_upload',
        dueAt: inDays(3, 23),
        unlockAt: null,
        lockAt: null,
        position: 1,
        workflowState: 'published',
      }),
    );
    await em.getRepository(Quiz).save(
      em.getRepository(Quiz).create({
        courseId: course.id,
        title: 'Practice quiz: cell parts',
        description: null,
        quizType: 'practice_quiz',
        assignmentId: null,
        timeLimit: null,
        allowedAttempts: -1,
        scoringPolicy: 'keep_highest',
        shuffleAnswers: false,
        accessCode: null,
        pointsPossible: 10,
        dueAt: inDays(5, 17),
        unlockAt: null,
        lockAt: null,
        workflowState: 'available',
      }),
    );
    const page = await em.getRepository(WikiPage).save(
      em.getRepository(WikiPage).create({
        courseId: course.id,
        title: 'Reading: membranes',
        url: 'reading-membranes',
        body: '<p>Chapter 4, sections 1-3.</p>',
        workflowState: 'active',
        editingRoles: 'teachers',
        frontPage: false,
        todoDate: inDays(2, 9),
        userId: teacher?.id ?? null,
      }),
    );
    const topic = await em.getRepository(DiscussionTopic).save(
      em.getRepository(DiscussionTopic).create({
        contextType: 'Course',
        contextId: course.id,
        userId: teacher?.id ?? null,
        title: 'Lab safety questions',
        message: '<p>Post one question before the lab.</p>',
        isAnnouncement: false,
        workflowState: 'active',
        discussionType: 'side_comment',
        postedAt: new Date(),
        delayedPostAt: null,
        lockAt: null,
        locked: false,
        lastReplyAt: null,
        activityAt: new Date(),
        activitySeq: 0,
        todoDate: inDays(4, 12),
        assignmentId: null,
        pinned: false,
        position: null,
        requireInitialPost: false,
        deletedAt: null,
      }),
    );
    if (teacher) {
      await em.getRepository(DiscussionParticipant).save(em.getRepository(DiscussionParticipant).create({ discussionTopicId: topic.id, userId: teacher.id, workflowState: 'read', lastReadEntryId: 0 }));
    }
    if (!student) return;
    const notes = em.getRepository(PlannerNote);
    await notes.save([
      notes.create({ userId: student.id, courseId: null, title: DEMO_PLANNER_NOTE, details: 'Before Thursday', todoDate: inDays(1, 16), workflowState: 'active', linkedObjectType: null, linkedObjectId: null }),
      notes.create({
        userId: student.id,
        courseId: course.id,
        title: 'Draft the lab report intro',
        details: null,
        todoDate: inDays(2, 18),
        workflowState: 'active',
        linkedObjectType: 'assignment',
        linkedObjectId: assignment.id,
      }),
    ]);
    const overrides = em.getRepository(PlannerOverride);
    await overrides.save(overrides.create({ userId: student.id, plannableType: 'wiki_page', plannableId: page.id, markedComplete: true, dismissed: false, workflowState: 'active', deletedAt: null }));
  },
};
