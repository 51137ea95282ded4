import { z } from 'zod';

/**
 * All configuration comes from the environment, validated once at start so a bad value stops the
 * process with a message naming the variable instead of failing later in a request.
 */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .default('sqlite:./data/lms.sqlite')
    .refine((v) => /^sqlite:.+/.test(v) || /^mysql:\/\/[^/]+\/[A-Za-z0-9_$]+(\?.*)?$/.test(v), {
      message: 'must be sqlite:<path>, sqlite::memory: or mysql://user:pass@host:port/database',
    }),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  LMS_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LMS_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  FILES_DIR: z.string().min(1).default('./data/files'),
});

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset" so `PORT= npm start` behaves like no PORT at all.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
