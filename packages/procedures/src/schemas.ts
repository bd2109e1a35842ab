import { z } from 'zod';

// Field schemas shared by several procedures. Bounds follow keys.createKey's as commissioned, then the reference
// API (docs/contract.md#field-bounds).

export const MAX_EXPIRES = 4102444800000;

/** The largest value of a Postgres `int` column (limits, and the remaining counts recorded with them). */
export const MAX_INT4 = 2_147_483_647;

export const resourceIdSchema = z
  .string()
  .min(3)
  .max(255)
  .regex(/^[a-zA-Z0-9_]+$/, 'may contain only letters, digits and underscores');

export const apiIdSchema = resourceIdSchema;

export const externalIdSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-zA-Z0-9_.-]+$/, 'may contain only letters, digits, underscores, dots and hyphens');

const RBAC_NAME = /^[a-zA-Z0-9_:\-.*]+$/;
const rbacName = (maxLength: number) =>
  z.string().min(1).max(maxLength).regex(RBAC_NAME, 'may contain only letters, digits and the characters _ : - . *');

/**
 * Role names, permission slugs and the id-or-name lookups of permissions.*: 1–128 characters, as the
 * reference allows everywhere, so that every role or permission that can be created can be attached.
 */
export const rbacNameSchema = rbacName(128);
/** keys.createKey's roles and permissions alone are bound at 1–100 characters (docs/contract.md#creating-keys). */
export const createKeyRbacNameSchema = rbacName(100);

export const keyPrefixSchema = z
  .string()
  .min(1)
  .max(16)
  .regex(/^[a-zA-Z0-9_]+$/, 'may contain only letters, digits and underscores');

export const keyByteLengthSchema = z.number().int().min(16).max(255);

// Postgres text and jsonb cannot hold U+0000 or a lone UTF-16 surrogate (JSON may escape one, but
// it is no Unicode character), and jsonb refuses very deep nesting: refusing such input here makes
// it a 400, not a failed insert.
const NUL = '\u0000';
/** As deep as the reference product's store (MySQL JSON) allows. */
const MAX_META_DEPTH = 100;

/** Why Postgres could not store this text, if it could not. */
function unstorableText(text: string): string | undefined {
  if (text.includes(NUL)) return 'must not contain the character U+0000';
  if (!text.isWellFormed()) return 'must be valid Unicode (it holds a lone surrogate)';
  return undefined;
}

/** The first problem with a JSON value for storage, if any. Iterative: the value may nest deeply. */
function jsonStorageProblem(value: unknown): string | undefined {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item === 'string') {
      const problem = unstorableText(item);
      if (problem) return problem;
    } else if (item !== null && typeof item === 'object') {
      if (depth >= MAX_META_DEPTH) return `must not nest deeper than ${MAX_META_DEPTH} levels`;
      for (const [key, entry] of Object.entries(item)) {
        const problem = unstorableText(key);
        if (problem) return problem;
        pending.push([entry, depth + 1]);
      }
    }
  }
  return undefined;
}

/**
 * Free text stored in a column. A plain check rather than superRefine: superRefine gives every
 * value it checks a closure of its own, and on the hot path (the names and identifiers of every
 * rate-limit check) V8 kept those closures alive through its young-generation collections, which
 * each had to copy them (docs/performance.md#what-holds-it-back).
 */
export const textSchema = z.string().check((ctx) => {
  const problem = unstorableText(ctx.value);
  if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
});

export const MAX_META_PROPERTIES = 100;
export const metaSchema = z
  .record(z.string(), z.unknown())
  .refine((meta) => Object.keys(meta).length <= MAX_META_PROPERTIES, {
    message: `must have at most ${MAX_META_PROPERTIES} properties`,
  })
  .superRefine((meta, ctx) => {
    const problem = jsonStorageProblem(meta);
    // Final: checks refined on top of this one (an identity's serialized size) recurse into the value.
    if (problem) ctx.addIssue({ code: 'custom', message: problem, continue: false });
  });

/**
 * An identity's meta is stored whole and read with every verification of its keys: at most 1 MB
 * serialized, as in the reference.
 */
export const MAX_IDENTITY_META_BYTES = 1024 * 1024;
export const identityMetaSchema = metaSchema.superRefine((meta, ctx) => {
  const bytes = Buffer.byteLength(JSON.stringify(meta));
  if (bytes > MAX_IDENTITY_META_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `Metadata is too large, it must be less than 1MB, got: ${(bytes / MAX_IDENTITY_META_BYTES).toFixed(2)}`,
    });
  }
});

/** identities.*: an identity named by its id or its externalId. */
export const identityRefSchema = textSchema.min(1).max(255);

export const keyNameSchema = textSchema.min(1).max(255);

export const apiNameSchema = textSchema.min(3).max(255);

export const expiresSchema = z.number().int().min(0).max(MAX_EXPIRES);

const refillDaySchema = z.number().int().min(1).max(31);

const refillObjectSchema = z.strictObject({
  interval: z
    .string()
    .toLowerCase()
    .pipe(z.enum(['daily', 'monthly'])),
  amount: z.number().int().min(1),
  refillDay: refillDaySchema.optional(),
  refill_day: refillDaySchema.optional(),
});
type RefillInput = z.output<typeof refillObjectSchema>;

function checkRefill(refill: RefillInput, ctx: z.RefinementCtx) {
  if (refill.refillDay !== undefined && refill.refill_day !== undefined && refill.refillDay !== refill.refill_day) {
    ctx.addIssue({
      code: 'custom',
      path: ['refill_day'],
      message: '`refill_day` disagrees with `refillDay`; send one',
    });
  }
  if (refill.interval === 'monthly' && (refill.refillDay ?? refill.refill_day) === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['refillDay'],
      message: '`refillDay` must be provided when the refill interval is `monthly`',
    });
  }
}

const toRefill = (refill: RefillInput) => ({
  interval: refill.interval,
  amount: refill.amount,
  // A daily refill happens every day, so a day of the month means nothing for it.
  refillDay: refill.interval === 'monthly' ? (refill.refillDay ?? refill.refill_day ?? null) : null,
});

/** `interval` in any letter case; `refillDay` with `refill_day` accepted as an alias. */
export const refillSchema = refillObjectSchema.superRefine(checkRefill).transform(toRefill);

/** As `refillSchema`, but a day of the month on a daily refill is an error (the reference's updateKey), not ignored. */
export const updateRefillSchema = refillObjectSchema
  .superRefine((refill, ctx) => {
    checkRefill(refill, ctx);
    if (refill.interval !== 'daily') return;
    for (const field of ['refillDay', 'refill_day'] as const) {
      if (refill[field] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: '`refillDay` must not be provided when the refill interval is `daily`.',
        });
      }
    }
  })
  .transform(toRefill);

function checkRefillHasRemaining(credits: { remaining?: number | null; refill?: unknown }, ctx: z.RefinementCtx) {
  if (credits.refill && credits.remaining === null) {
    ctx.addIssue({ code: 'custom', path: ['remaining'], message: 'a refill needs a number of remaining credits' });
  }
}

export const creditsSchema = z
  .strictObject({
    remaining: z.number().int().min(0).nullable(),
    refill: refillSchema.optional(),
  })
  .superRefine(checkRefillHasRemaining);

/** updateKey's credits: absent fields stay as they are; `null` clears (no remaining: unlimited). */
export const updateCreditsSchema = z
  .strictObject({
    remaining: z.number().int().min(0).nullable().optional(),
    refill: updateRefillSchema.nullable().optional(),
  })
  .superRefine(checkRefillHasRemaining);

export const ratelimitSchema = z
  .strictObject({
    name: textSchema.min(3).max(128),
    // The reference sets no maximum; ours is what the column holds, so a larger one is a 400, not a 500.
    limit: z.number().int().min(1).max(MAX_INT4),
    duration: z.number().int().min(1000),
    autoApply: z.boolean().default(false),
  })
  .transform(({ duration, ...limit }) => ({ ...limit, durationMs: duration }));

export const ratelimitsSchema = z
  .array(ratelimitSchema)
  .max(50)
  .superRefine((limits, ctx) => {
    const seen = new Set<string>();
    limits.forEach((limit, index) => {
      if (seen.has(limit.name)) {
        ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate ratelimit name '${limit.name}'` });
      }
      seen.add(limit.name);
    });
  });

export const permissionSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    description: z.string().optional(),
  })
  .meta({ id: 'Permission' });

export const roleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    permissions: z.array(permissionSchema),
  })
  .meta({ id: 'Role' });

/** ratelimit.*: a namespace named by its id or its name, as the reference allows (1–512). */
export const ratelimitNamespaceRefSchema = textSchema.min(1).max(512);

/** ratelimit.*: what is limited (a user, an IP, …); any text of 1–512 characters. */
export const ratelimitIdentifierSchema = textSchema.min(1).max(512);

/** 30 days: the reference's maximum window for `ratelimit.*` (its key-level limits have none). */
export const MAX_RATELIMIT_DURATION_MS = 2_592_000_000;

export const ratelimitDurationSchema = z.number().int().min(1000).max(MAX_RATELIMIT_DURATION_MS);
