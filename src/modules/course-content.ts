import { In, Not } from 'typeorm';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import { setTopicsPublished } from '../discussions/topic-publishing';
import { ContentInfo, courseIdList, type ContentAdapter, type FactsProvider, StudentFacts } from './content-registry';
import type { ItemFacts } from './progression-evaluator';
import { Assignment } from '../content/assignments/assignment.entity';
import { submittedTo } from '../content/assignments/assignment.service';
import { ExternalTool } from '../content/external-tools/external-tool.entity';
import { WikiPage } from '../content/pages/page.entity';
import { QuizSubmission } from '../content/quizzes/quiz-submission.entity';
import { Quiz } from '../content/quizzes/quiz.entity';
import { takenQuizzes } from '../content/quizzes/quiz.service';
import { Submission } from '../content/submissions/submission.entity';

/**
 * How modules reach the content of this area (src/modules/content-registry.ts): what an item links
 * to, publishing and renaming through a module, and each student's work for progress.
 */

/** Not deleted (typed loosely: each entity has its own state union). */
const live = { workflowState: Not('deleted') as never };
/** The same, as SQL (content-registry's ContentSql): a live row of the item's course. */
const liveIn = (course: string) => `mc.course_id = ${course} AND mc.workflow_state <> 'deleted'`;

export const assignmentContent: ContentAdapter = {
  kind: 'Assignment',
  async load(ctx, courseIds, ids) {
    const rows = ids.length ? await ctx.ds.getRepository(Assignment).findBy({ id: In(ids), courseId: In(courseIdList(courseIds)), ...live }) : [];
    const [taken, quizzes] = await Promise.all([
      submittedTo(ctx.ds.manager, rows.map((a) => a.id)),
      rows.length ? ctx.ds.getRepository(Quiz).findBy({ assignmentId: In(rows.map((a) => a.id)), ...live }) : Promise.resolve([]),
    ]);
    return new Map(
      rows.map((a): [number, ContentInfo] => [
        a.id,
        {
          id: a.id,
          courseId: a.courseId,
          title: a.name,
          published: a.published,
          assignmentId: a.id,
          quizId: quizzes.find((q) => q.assignmentId === a.id)?.id ?? null,
          pointsPossible: a.pointsPossible,
          dueAt: a.dueAt,
          unlockAt: a.unlockAt,
          lockAt: a.lockAt,
          unpublishable: !taken.has(a.id),
        },
      ]),
    );
  },
  async setPublished(em, courseId, ids, published) {
    let targets = ids.length ? await em.getRepository(Assignment).findBy({ id: In(ids), courseId, ...live }) : [];
    if (!published && targets.length) {
      // Assignments students have submitted to stay published.
      const taken = await submittedTo(em, targets.map((a) => a.id));
      targets = targets.filter((a) => !taken.has(a.id));
    }
    if (!targets.length) return;
    await em.getRepository(Assignment).update({ id: In(targets.map((a) => a.id)) }, { workflowState: published ? 'published' : 'unpublished' });
    await em.getRepository(Quiz).update({ assignmentId: In(targets.map((a) => a.id)), ...live }, { workflowState: published ? 'available' : 'unpublished' });
    // A graded discussion follows its assignment.
    await setTopicsPublished(em, await em.getRepository(DiscussionTopic).findBy({ assignmentId: In(targets.map((a) => a.id)), contextType: 'Course', ...live }), published);
  },
  async rename(em, courseId, id, title) {
    await em.getRepository(Assignment).update({ id, courseId }, { name: title });
    await em.getRepository(Quiz).update({ assignmentId: id, ...live }, { title });
    await em.getRepository(DiscussionTopic).update({ assignmentId: id, contextType: 'Course', contextId: courseId, ...live }, { title });
  },
  apiUrl: (baseUrl, courseId, info) => `${baseUrl}/api/v1/courses/${courseId}/assignments/${info.id}`,
  sql: { table: 'assignments', live: liveIn, published: "mc.workflow_state = 'published'", assignment: () => 'mc.id' },
};

export const quizContent: ContentAdapter = {
  kind: 'Quiz',
  async load(ctx, courseIds, ids) {
    const rows = ids.length ? await ctx.ds.getRepository(Quiz).findBy({ id: In(ids), courseId: In(courseIdList(courseIds)), ...live }) : [];
    const taken = await takenQuizzes(ctx.ds.manager, rows.map((q) => q.id));
    return new Map(
      rows.map((q): [number, ContentInfo] => [
        q.id,
        {
          id: q.id,
          courseId: q.courseId,
          title: q.title,
          published: q.published,
          assignmentId: q.assignmentId,
          quizId: q.id,
          pointsPossible: q.pointsPossible,
          dueAt: q.dueAt,
          unlockAt: q.unlockAt,
          lockAt: q.lockAt,
          unpublishable: !taken.has(q.id),
        },
      ]),
    );
  },
  async setPublished(em, courseId, ids, published) {
    let targets = ids.length ? await em.getRepository(Quiz).findBy({ id: In(ids), courseId, ...live }) : [];
    if (!published) {
      const taken = await takenQuizzes(em, targets.map((q) => q.id));
      targets = targets.filter((q) => !taken.has(q.id));
    }
    if (!targets.length) return;
    await em.getRepository(Quiz).update({ id: In(targets.map((q) => q.id)) }, { workflowState: published ? 'available' : 'unpublished' });
    const assignmentIds = targets.map((q) => q.assignmentId).filter((x): x is number => x != null);
    if (assignmentIds.length) await em.getRepository(Assignment).update({ id: In(assignmentIds), ...live }, { workflowState: published ? 'published' : 'unpublished' });
  },
  async rename(em, courseId, id, title) {
    const quiz = await em.getRepository(Quiz).findOneBy({ id, courseId });
    if (!quiz) return;
    await em.getRepository(Quiz).update({ id }, { title });
    if (quiz.assignmentId) await em.getRepository(Assignment).update({ id: quiz.assignmentId }, { name: title });
  },
  apiUrl: (baseUrl, courseId, info) => `${baseUrl}/api/v1/courses/${courseId}/quizzes/${info.id}`,
  sql: { table: 'quizzes', live: liveIn, published: "mc.workflow_state = 'available'", assignment: () => 'mc.assignment_id' },
};

const pageInfo = (p: WikiPage): ContentInfo => ({
  id: p.id,
  courseId: p.courseId,
  title: p.title,
  published: p.published,
  assignmentId: null,
  pointsPossible: null,
  dueAt: null,
  unlockAt: null,
  lockAt: null,
  pageUrl: p.url,
  unpublishable: !p.frontPage,
});

export const pageContent: ContentAdapter = {
  kind: 'Page',
  async load(ctx, courseIds, ids) {
    const rows = ids.length ? await ctx.ds.getRepository(WikiPage).findBy({ id: In(ids), courseId: In(courseIdList(courseIds)), ...live }) : [];
    return new Map(rows.map((p) => [p.id, pageInfo(p)]));
  },
  async findBySlug(ctx, courseId, slug) {
    const p = await ctx.ds.getRepository(WikiPage).findOneBy({ courseId, url: slug, ...live });
    return p ? pageInfo(p) : null;
  },
  async setPublished(em, courseId, ids, published) {
    if (!ids.length) return;
    // The front page cannot be unpublished.
    await em.getRepository(WikiPage).update({ id: In(ids), courseId, ...live, ...(published ? {} : { frontPage: false }) }, { workflowState: published ? 'active' : 'unpublished' });
  },
  async rename(em, courseId, id, title) {
    // The slug stays, so links and module items keep working.
    await em.getRepository(WikiPage).update({ id, courseId }, { title });
  },
  apiUrl: (baseUrl, courseId, info) => `${baseUrl}/api/v1/courses/${courseId}/pages/${info.pageUrl}`,
  sql: { table: 'wiki_pages', live: liveIn, published: "mc.workflow_state = 'active'" },
};

export const externalToolContent: ContentAdapter = {
  kind: 'ExternalTool',
  async load(ctx, courseIds, ids) {
    const rows = ids.length ? await ctx.ds.getRepository(ExternalTool).findBy({ id: In(ids), courseId: In(courseIdList(courseIds)), ...live }) : [];
    return new Map(
      rows.map((t): [number, ContentInfo] => [
        t.id,
        { id: t.id, courseId: t.courseId, title: t.name, published: true, assignmentId: null, pointsPossible: null, dueAt: null, unlockAt: null, lockAt: null, url: t.url },
      ]),
    );
  },
  apiUrl: (baseUrl, courseId, info) =>
    `${baseUrl}/api/v1/courses/${courseId}/external_tools/sessionless_launch?id=${info.id}${info.url ? `&url=${encodeURIComponent(info.url)}` : ''}`,
  sql: { table: 'context_external_tools', live: liveIn, published: '1 = 1' },
};

/**
 * Each student's work in a course, for progress: an assignment counts as submitted once an attempt
 * was turned in (a grade entered without one does not), its score as soon as it is graded (grades are
 * posted at once here); a quiz by its kept score across turned-in attempts.
 */
export const courseWorkFacts: FactsProvider = async (ctx, courseId, userIds, em) => {
  const out = new Map<number, StudentFacts>(userIds.map((id) => [id, { byAssignment: new Map(), byQuiz: new Map() }]));
  if (!userIds.length) return out;
  const m = em ?? ctx.ds.manager;
  const [assignments, submissions, quizzes] = await Promise.all([
    m.getRepository(Assignment).find({ select: { id: true, pointsPossible: true }, where: { courseId, ...live } }),
    m.getRepository(Submission).findBy({ courseId, userId: In(userIds) }),
    m.getRepository(Quiz).find({ select: { id: true, pointsPossible: true, assignmentId: true }, where: { courseId, ...live } }),
  ]);
  const points = new Map(assignments.map((a) => [a.id, a.pointsPossible]));
  const excused = new Set<string>();
  for (const s of submissions) {
    if (!points.has(s.assignmentId)) continue;
    if (s.excused) excused.add(`${s.assignmentId}:${s.userId}`);
    const facts: ItemFacts = {
      submitted: s.submittedAt != null && s.workflowState !== 'unsubmitted',
      score: s.score,
      scorePending: s.workflowState === 'pending_review',
      pointsPossible: points.get(s.assignmentId) ?? null,
      excused: s.excused,
    };
    out.get(s.userId)?.byAssignment.set(s.assignmentId, facts);
  }
  const quizSubs = quizzes.length ? await m.getRepository(QuizSubmission).findBy({ quizId: In(quizzes.map((q) => q.id)), userId: In(userIds), wasPreview: false }) : [];
  const byId = new Map(quizzes.map((q) => [q.id, q]));
  for (const qs of quizSubs) {
    const quiz = byId.get(qs.quizId)!;
    const turnedIn = qs.completed || qs.keptScore != null;
    if (!turnedIn) continue;
    out.get(qs.userId)?.byQuiz.set(qs.quizId, {
      submitted: true,
      score: qs.keptScore,
      scorePending: qs.workflowState === 'pending_review',
      pointsPossible: quiz.pointsPossible,
      excused: quiz.assignmentId != null && excused.has(`${quiz.assignmentId}:${qs.userId}`),
    });
  }
  return out;
};
