import type { AnalyticsDatabase } from '@keyplane/analytics';
import type {
  FreshnessCache,
  RatelimitNamespaceSnapshot,
  RatelimitOverrideRule,
  Tally,
  TeamRole,
  VerificationKey,
  WorkspaceLimits,
} from '@keyplane/core';
import type { CreditSpender, RootKeyRecord, RootKeyUsageTracker } from '@keyplane/db';
import type { RatelimitRecorder, VerificationRecorder } from '@keyplane/events';
import type { Quota, RateLimitEngine } from '@keyplane/ratelimit';

/** People's accounts and how they sign in (docs/team-accounts.md). */
export interface TeamSettings {
  /** PUBLIC_URL: the origin links are made on; undefined: the request's own origin (`Context.requestOrigin`). */
  publicUrl: string | undefined;
  /** DASHBOARD_ROOT_KEY_SIGNIN: false refuses root keys as a dashboard sign-in in every workspace. */
  rootKeySignIn: boolean;
  /** Failed sign-ins per account (the per-address count is `signInThrottle`). */
  accountSignInThrottle: Quota;
  /** Single sign-on is configured (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET): the sign-in page offers it. */
  sso: boolean;
  /** SMTP_URL: sends invitation emails; undefined: the inviter passes the link on themselves. */
  mailer?: InvitationMailer;
}

/** What an invitation email says: the link is its only secret, and goes to the invitee alone. */
export interface InvitationEmail {
  to: string;
  url: string;
  workspaceName: string;
  role: TeamRole;
  /** Who invited, as the email names them; null when a root key did. */
  invitedBy: string | null;
  expiresAt: number;
}

/** Sends invitation emails (apps/api builds it from SMTP_URL and SMTP_FROM). */
export interface InvitationMailer {
  /** Resolves once the mail server accepted the email; rejects when it did not. */
  sendInvitation(email: InvitationEmail): Promise<void>;
}

/** Long-lived, per-process collaborators shared by every request. */
export interface Services {
  /** Live keys by hash; `null` caches "no such key" so garbage keys do not reach Postgres. */
  keyCache: FreshnessCache<VerificationKey | null>;
  rootKeyCache: FreshnessCache<RootKeyRecord | null>;
  /**
   * Rate-limit namespaces by `namespaceCacheKey` (the id or the name a request named one by); `null`
   * caches "no such namespace", so garbage names do not reach Postgres.
   */
  namespaceCache: FreshnessCache<RatelimitNamespaceSnapshot | null>;
  /** Exact-identifier overrides by `overrideCacheKey`; `null` caches "none". */
  overrideCache: FreshnessCache<RatelimitOverrideRule | null>;
  /**
   * What this node decided, by outcome, for the metrics endpoint: every verification by its code,
   * every `ratelimit.limit`/`multiLimit` call by `passed` or `refused`.
   */
  outcomes: { verifications: Tally; ratelimitDecisions: Tally };
  /** Customers' limits (keys, identities, ratelimit.*): exact, all or nothing. */
  rateLimiter: RateLimitEngine;
  /** The workspace API rate limit: requests per minute of a workspace's root keys. */
  workspaceRateLimit: Quota;
  /** Analytics queries a workspace may run per hour (`analyticsQueriesPerHour`). */
  analyticsQuota: Quota;
  /** Failed dashboard sign-ins, per client address. */
  signInThrottle: Quota;
  /** Requests of each portal customer's session per minute (docs/portal.md#limits). */
  portalSessionThrottle: Quota;
  credits: CreditSpender;
  verifications: VerificationRecorder;
  ratelimitEvents: RatelimitRecorder;
  rootKeyUsage: RootKeyUsageTracker;
  /**
   * The connections analytics queries run on, apart from every other call's, taken in turns among
   * workspaces, each with a bound on its queries running at once (429 query_concurrency_exceeded).
   */
  analytics: AnalyticsDatabase;
  /** Analytics queries one workspace may run per hour (429 query_quota_exceeded past it). */
  analyticsQueriesPerHour: number;
  /** Days of analytics kept (400 query_range_exceeds_retention for queries reaching further back); undefined: kept forever. */
  analyticsRetentionDays?: number;
  /** What one workspace may hold (docs/contract.md#limits): checked when rows are added, never when they are used. */
  limits: WorkspaceLimits;
  /** Webhook endpoints may target loopback, private and link-local addresses (WEBHOOKS_ALLOW_PRIVATE). */
  webhooksAllowPrivate: boolean;
  /** Webhook endpoints one workspace may have (LIMIT_WEBHOOK_ENDPOINTS_PER_WORKSPACE; 412 past it). */
  webhookEndpointsPerWorkspace: number;
  team: TeamSettings;
  /** Signs dashboard session cookies; the same on every node (kept in the database). */
  sessionSigningKey: Uint8Array;
  /** A failure that must not fail the request it happened in (the change itself has committed). */
  reportError(message: string, error: unknown, requestId: string): void;
  now(): number;
  /**
   * Resolves once every node's invalidation listener has been handed what this node committed so
   * far (bounded: the one-second freshness window covers a lost message).
   */
  announcementsDelivered(): Promise<void>;
}
