import { hash, model, nullableText, oneOf, params, text, z } from '../api/rest/input';
import { SEVERITIES } from './error-report.entity';
import { ERROR_REPORT_LIMITS as L } from './error-report.service';

/**
 * Declared params of POST /api/v1/error_reports: the error[...] hash, a model() hash so a refusal names
 * `subject`, `comments` … as the service's own checks do. The JSON size of http_env and the shape of
 * context_asset_string stay with the service.
 */
export const errorReportParams = params({
  error: model({
    subject: nullableText({ max: L.subject }).optional(),
    comments: nullableText({ max: L.comments }).optional(),
    email: nullableText({ max: L.email }).optional(),
    url: nullableText({ max: L.url }).optional(),
    // A nested hash (form or JSON) or a string holding a JSON object; anything else is ignored.
    http_env: z.union([hash(z.unknown(), { max: 500 }), text({ max: 65_535 }), z.null()], { error: 'must be a hash or a JSON object' }).optional(),
    user_perceived_severity: oneOf(SEVERITIES, { nullable: true }).optional(),
    context_asset_string: nullableText({ max: L.context_asset_string }).optional(),
    // Canvas's honeypot: the route refuses any value.
    username: nullableText({ max: 255 }).optional(),
  }).optional(),
});
