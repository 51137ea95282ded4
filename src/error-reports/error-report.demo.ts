import type { DemoExtension } from '../courses/demo-world';
import { ErrorReport } from './error-report.entity';

/** One problem report from a demo student, for site admins to find through errorReportsConnection. */
export const errorReportsDemo: DemoExtension = {
  name: 'error reports',
  async seed(em, world, { rootAccountId }) {
    const student = world.users.get('student1');
    const repo = em.getRepository(ErrorReport);
    await repo.save(
      repo.create({
        subject: 'The video in the first module does not play',
        comments: 'It shows a spinner forever in Firefox; it works in Chrome.',
        userPerceivedSeverity: 'workaround_possible',
        email: 'demo.student1@example.com',
        url: null,
        contextAssetString: `course_${world.course.id}`,
        userRoles: 'user,student',
        httpEnv: JSON.stringify({ HTTP_USER_AGENT: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', REQUEST_METHOD: 'POST', PATH_INFO: '/api/v1/error_reports' }),
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
        requestId: null,
        userId: student?.id ?? null,
        realUserId: null,
        accountId: rootAccountId,
      }),
    );
  },
};
