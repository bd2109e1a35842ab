import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repository root, so `.data/` is found the same way by the server, the CLI and the tests. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const masterKey = optionalString.transform((value, ctx) => {
  if (value === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (bytes.length !== 32) {
    ctx.addIssue({ code: 'custom', message: 'must be 32 bytes, written as 64 hex characters or base64' });
    return z.NEVER;
  }
  return bytes;
});

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(7070),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  REDIS_URL: optionalString.pipe(z.url({ protocol: /^rediss?$/ }).optional()),
  VAULT_MASTER_KEY: masterKey,
  ERRORS_BASE_URL: z.url().default('https://keyplane.dev/errors'),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  DATA_DIR: z.string().default(`${REPO_ROOT}.data`),
  /** How long raw analytics events (and their rollups, to the end of their bucket) are kept. */
  ANALYTICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Analytics queries one workspace may run per hour, over all nodes (the reference's default). */
  ANALYTICS_QUERIES_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000_000).default(1000),
  LOG_REQUESTS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
});

export type Env = z.output<typeof envSchema>;

export class EnvError extends Error {
  constructor(issues: string[]) {
    super(`Invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

/** Exit code for invalid configuration (EX_CONFIG from sysexits.h). */
export const CONFIG_ERROR_EXIT_CODE = 78;

/** The one place that reads the environment. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    throw new EnvError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return parsed.data;
}
