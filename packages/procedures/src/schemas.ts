import { z } from 'zod';

// Field schemas shared by several procedures. Bounds follow interface-spec 4.1, then the reference API.

export const MAX_EXPIRES = 4102444800000;

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
const rbacName = z
  .string()
  .min(1)
  .max(100)
  .regex(RBAC_NAME, 'may contain only letters, digits and the characters _ : - . *');

export const roleNameSchema = rbacName;
export const permissionSlugSchema = rbacName;

export const keyPrefixSchema = z
  .string()
  .min(1)
  .max(16)
  .regex(/^[a-zA-Z0-9_]+$/, 'may contain only letters, digits and underscores');

export const keyByteLengthSchema = z.number().int().min(16).max(255);

export const MAX_META_PROPERTIES = 100;
export const metaSchema = z
  .record(z.string(), z.unknown())
  .refine((meta) => Object.keys(meta).length <= MAX_META_PROPERTIES, {
    message: `must have at most ${MAX_META_PROPERTIES} properties`,
  });

export const expiresSchema = z.number().int().min(0).max(MAX_EXPIRES);

const refillDaySchema = z.number().int().min(1).max(31);

/** `interval` in any letter case; `refillDay` with `refill_day` accepted as an alias. */
export const refillSchema = z
  .strictObject({
    interval: z
      .string()
      .toLowerCase()
      .pipe(z.enum(['daily', 'monthly'])),
    amount: z.number().int().min(1),
    refillDay: refillDaySchema.optional(),
    refill_day: refillDaySchema.optional(),
  })
  .superRefine((refill, ctx) => {
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
  })
  .transform((refill) => ({
    interval: refill.interval,
    amount: refill.amount,
    // A daily refill happens every day, so a day of the month means nothing for it.
    refillDay: refill.interval === 'monthly' ? (refill.refillDay ?? refill.refill_day ?? null) : null,
  }));

export const creditsSchema = z
  .strictObject({
    remaining: z.number().int().min(0).nullable(),
    refill: refillSchema.optional(),
  })
  .superRefine((credits, ctx) => {
    if (credits.refill && credits.remaining === null) {
      ctx.addIssue({ code: 'custom', path: ['remaining'], message: 'a refill needs a number of remaining credits' });
    }
  });

export const ratelimitSchema = z
  .strictObject({
    name: z.string().min(3).max(128),
    limit: z.number().int().min(1),
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
