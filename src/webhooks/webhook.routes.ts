import { PAYLOAD_ERRORS } from '../api/rest/route';
import type { RestRoute } from '../api/rest/route';
import { id, params, text } from '../api/rest/input';
import { JwksSchema } from './webhook.schemas';

const JWKS_OPERATION = `query { webhookSigningKeys }`;

/** The public keys of webhook signatures, at Canvas's LTI security path and the well-known one. */
const jwksRoute = (path: string): RestRoute => ({
  method: 'GET',
  path,
  accepts: params({}),
  anonymous: true,
  operation: JWKS_OPERATION,
  root: 'webhookSigningKeys',
  response: JwksSchema,
  headers: () => ({ 'Cache-Control': 'public, max-age=300' }),
});

const RESUBMIT = `mutation($input: ResubmitToPlagiarismInput!) { resubmitToPlagiarism(input: $input) { submissionId ${PAYLOAD_ERRORS} } }`;

/**
 * Canvas's grader action to resend a submission to the plagiarism tool
 * (config/routes.rb: post "turnitin/resubmit" and "vericite/resubmit" under
 * courses/:course_id/assignments/:assignment_id/submissions/:submission_id, where :submission_id
 * is the student's user id). JSON requests get 204 No Content.
 */
const resubmitRoute = (vendor: string): RestRoute => ({
  method: 'POST',
  path: `/courses/:course_id/assignments/:assignment_id/submissions/:submission_id/${vendor}/resubmit`,
  // The service answers Canvas's own statuses for malformed ids (400) and missing ones (404).
  accepts: params({ course_id: id({ prefixes: ['sis_course_id'] }), assignment_id: text({ max: 64 }), submission_id: text({ max: 255 }) }),
  operation: RESUBMIT,
  variables: ({ values }) => ({
    input: { courseId: values.course_id, assignmentId: values.assignment_id, userId: values.submission_id },
  }),
  root: 'resubmitToPlagiarism',
  status: 204,
});

export const webhookRoutes: RestRoute[] = [
  jwksRoute('/api/lti/security/jwks'),
  jwksRoute('/.well-known/jwks.json'),
  resubmitRoute('turnitin'),
  resubmitRoute('vericite'),
];
