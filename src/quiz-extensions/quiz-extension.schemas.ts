import { arr, defineSchema, shape } from '../api/rest/response';

export const QuizExtensionSchema = defineSchema(
  'QuizExtension',
  shape({ quiz_id: 'id', user_id: 'id', extra_attempts: 'int?', extra_time: 'int?', manually_unlocked: 'bool', end_at: 'date?' }),
);

export const QuizExtensionsSchema = defineSchema('QuizExtensions', shape({ quiz_extensions: arr(QuizExtensionSchema) }));
