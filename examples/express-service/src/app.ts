import { Unkey } from '@unkey/api';
import type { V2KeysVerifyKeyResponseData } from '@unkey/api/models/components';
import express, { type NextFunction, type Request, type Response } from 'express';

export interface AppOptions {
  /** Keyplane's base URL, e.g. http://localhost:3000. */
  keyplaneUrl: string;
  /** A root key with `api.*.verify_key` (or `api.<apiId>.verify_key`). */
  rootKey: string;
}

interface Protection {
  /** A permission query the key must satisfy, e.g. `reports.read`. */
  permissions?: string;
  /** Credits one request spends from the key's balance; none unless given (Keyplane would spend 1). */
  cost?: number;
}

/** How each verification outcome is answered; VALID lets the request through. */
const REFUSALS: Record<string, { status: number; message: string }> = {
  NOT_FOUND: { status: 401, message: 'The API key is not valid.' },
  EXPIRED: { status: 401, message: 'The API key has expired.' },
  DISABLED: { status: 401, message: 'The API key is disabled.' },
  FORBIDDEN: { status: 403, message: 'The API key may not be used here.' },
  INSUFFICIENT_PERMISSIONS: { status: 403, message: 'The API key lacks the permission for this route.' },
  // Out of credits is a quota the customer can top up: 402, not the 429 of a rate limit.
  USAGE_EXCEEDED: { status: 402, message: 'The API key has no credits left.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests: slow down.' },
};

/**
 * The service: every route under /v1 needs an API key issued by Keyplane, sent as
 * `Authorization: Bearer <key>`. The app is separate from main.ts so that tests can start it on any port.
 */
export function createApp(options: AppOptions): express.Express {
  const unkey = new Unkey({ serverURL: options.keyplaneUrl, rootKey: options.rootKey });
  const app = express();

  /** Verifies the caller's key with Keyplane, passes its rate-limit state on, and refuses what is not VALID. */
  const requireKey =
    (protection: Protection = {}) =>
    async (req: Request, res: Response, next: NextFunction) => {
      const key = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '')?.[1];
      if (!key) {
        res.status(401).json({ error: 'Send your API key as Authorization: Bearer <key>.' });
        return;
      }
      const { data } = await unkey.keys.verifyKey({
        key,
        permissions: protection.permissions,
        credits: { cost: protection.cost ?? 0 },
      });
      setRateLimitHeaders(res, data);
      const refusal = data.valid ? undefined : (REFUSALS[data.code] ?? REFUSALS.NOT_FOUND);
      if (refusal) {
        res.status(refusal.status).json({ error: refusal.message, code: data.code });
        return;
      }
      res.locals.key = data;
      next();
    };

  app.get('/v1/me', requireKey(), (_req, res) => {
    const key = res.locals.key as V2KeysVerifyKeyResponseData;
    res.json({ keyId: key.keyId, name: key.name, owner: key.identity?.externalId, credits: key.credits });
  });

  app.get('/v1/reports', requireKey({ permissions: 'reports.read' }), (_req, res) => {
    res.json({ reports: [{ id: 'monthly', title: 'Monthly usage' }] });
  });

  app.post('/v1/generate', requireKey({ cost: 1 }), (_req, res) => {
    const key = res.locals.key as V2KeysVerifyKeyResponseData;
    res.json({ result: 'generated', creditsLeft: key.credits });
  });

  // Keyplane unreachable or refusing the root key: the service cannot tell who is calling.
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    console.error('key verification failed', error);
    res.status(503).json({ error: 'Key verification is unavailable; try again shortly.' });
  });

  return app;
}

/**
 * The key's most restrictive rate limit (fewest requests left) as the IETF RateLimit headers, and
 * Retry-After once it is exceeded, so that the caller can pace itself.
 */
function setRateLimitHeaders(res: Response, data: V2KeysVerifyKeyResponseData): void {
  const tightest = data.ratelimits?.toSorted((a, b) => a.remaining - b.remaining)[0];
  if (!tightest) return;
  const resetSeconds = Math.max(0, Math.ceil((tightest.reset - Date.now()) / 1000));
  res.set({
    'RateLimit-Limit': String(tightest.limit),
    'RateLimit-Remaining': String(tightest.remaining),
    'RateLimit-Reset': String(resetSeconds),
  });
  if (tightest.exceeded) res.set('Retry-After', String(resetSeconds));
}
