import { PAYLOAD_ERRORS } from '../api/rest/route';
import { RequestError } from '../common/errors';
import type { RestRoute } from '../api/rest/route';
import { errorReportParams } from './error-report.params';
import { ErrorReportResultSchema } from './error-report.schemas';

type Json = Record<string, any>;

/**
 * error[http_env] as Canvas takes it from API clients: a nested hash (`error[http_env][KEY]=…` or a JSON
 * object) or a string holding a JSON object. Anything else is ignored, and the server then records
 * the request's environment itself.
 */
export function httpEnvParam(v: unknown): Json | undefined {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Json;
  if (typeof v === 'string' && v.trim().startsWith('{')) {
    try {
      const parsed = JSON.parse(v);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON: ignored, as in Canvas
    }
  }
  return undefined;
}

export const errorReportRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/error_reports',
    accepts: errorReportParams,
    // Canvas lets anyone report a problem, logged in or not.
    anonymous: true,
    operation: `mutation($input: CreateErrorReportInput!) { createErrorReport(input: $input) { logged errorReportId ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => {
      const e: Json = values.error ?? {};
      // Canvas's honeypot: a hidden form field only spam bots fill in.
      if (e.username) throw new RequestError('bad request', 400);
      const input: Json = {
        subject: e.subject,
        comments: e.comments,
        email: e.email,
        url: e.url,
        httpEnv: httpEnvParam(e.http_env),
        userPerceivedSeverity: e.user_perceived_severity,
        contextAssetString: e.context_asset_string,
      };
      // Absent fields stay out of the input (an explicit undefined would arrive as null).
      return { input: Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) };
    },
    root: 'createErrorReport',
    present: (r: Json) => ({ logged: r.logged, id: r.errorReportId == null ? null : Number(r.errorReportId) }),
    response: ErrorReportResultSchema,
  },
];
