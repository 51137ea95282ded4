import { defineSchema, shape } from '../api/rest/response';

export const ErrorReportResultSchema = defineSchema('ErrorReportResult', shape({ logged: 'bool', id: 'id?' }));
