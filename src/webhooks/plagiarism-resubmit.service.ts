import { ForbiddenError, NotFoundError, RequestError } from '../common/errors';
import { transaction } from '../db/transaction';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { CourseService } from '../courses/course.service';
import { ContentAccess } from '../content/content-access';
import { AssignmentService } from '../content/assignments/assignment.service';
import { SubmissionService } from '../content/submissions/submission.service';

/**
 * A grader asks for a submission to be sent to the plagiarism tool again (Canvas's
 * SubmissionsController#resubmit_to_turnitin / resubmit_to_vericite, which emit the
 * plagiarism_resubmit live event). Graders only (manage_grades or view_all_grades), as Canvas's
 * authorized_action answers: 401 otherwise.
 */
export class PlagiarismResubmitService {
  constructor(private readonly ctx: RequestContext) {}

  async resubmit(courseRaw: string, assignmentRaw: string, userRaw: string): Promise<{ submissionId: string }> {
    this.ctx.authz.requireViewer();
    // Canvas answers a non-numeric assignment or student id with a bare 400.
    if (!/^\d+$/.test(assignmentRaw) || !/^\d+$/.test(userRaw)) throw new RequestError('bad request');
    const course = await this.ctx.use(CourseService).lookup(courseRaw);
    if (!(await this.ctx.use(ContentAccess).isGrader(course))) throw new ForbiddenError(undefined, 401);
    const { assignment } = await this.ctx.use(AssignmentService).find(String(course.id), assignmentRaw);
    let submission;
    try {
      submission = await this.ctx.use(SubmissionService).show(String(course.id), String(assignment.id), userRaw);
    } catch (e) {
      // No submission for that user in this assignment (not a student of the course).
      if (e instanceof NotFoundError) throw new RequestError('bad request');
      throw e;
    }
    await transaction(this.ctx.ds, (em) =>
      raise(em, this.ctx, {
        type: 'submission.plagiarism_resubmit',
        courseId: course.id,
        assignmentId: assignment.id,
        userId: submission.userId,
        submissionId: submission.id,
      }),
    );
    return { submissionId: String(submission.id) };
  }
}
