import { hasLowCredits, keyStatus } from '@keyplane/core/rules';
import type { BadgeTone } from './components/StatusBadge.tsx';
import { formatCount, formatDuration, formatNumber } from './format.ts';

/** A key expiring within this is said to expire soon. */
export const EXPIRING_SOON_MS = 7 * 86_400_000;

/**
 * A key refused by its rate limit on at least this share of its recent verifications (and at least
 * {@link RATE_LIMITED_MIN_CALLS} of them) is rate limited now, whatever its status says.
 */
export const RATE_LIMITED_SHARE = 0.25;
export const RATE_LIMITED_MIN_CALLS = 20;

export interface KeyFacts {
  enabled: boolean;
  expires?: number;
  credits?: { remaining: number | null; refill?: { interval: string; amount: number } };
  ratelimits?: { name: string; limit: number; duration: number }[];
}

/** The key's verifications of the recent window by outcome code, as analytics counts them. */
export type RecentOutcomes = ReadonlyMap<string, number>;

export interface Refusal {
  tone: 'bad' | 'warn';
  title: string;
  detail: string;
}

export interface KeyHealth {
  /** What the key's badge says: its status, or what refuses it now. */
  label: string;
  tone: BadgeTone;
  /** Everything refusing or about to refuse it, most serious first. */
  refusals: Refusal[];
}

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });

/**
 * What is refusing the key now, in words: its status as its next verification would answer it
 * (core `keyStatus`), and beside that what its recent verifications say (refused by its rate limit)
 * and what is about to bite (credits low, expiry near). `recent` is the last hour's outcomes, or
 * undefined while they are not known.
 */
export function keyHealth(key: KeyFacts, recent: RecentOutcomes | undefined, now: number): KeyHealth {
  const remaining = key.credits?.remaining ?? null;
  const status = keyStatus({ enabled: key.enabled, expires: key.expires, remainingCredits: remaining }, now);
  const refusals: Refusal[] = [];
  if (status === 'disabled') {
    refusals.push({
      tone: 'bad',
      title: 'Disabled',
      detail: 'Every verification answers DISABLED until it is enabled.',
    });
  }
  if (status === 'expired') {
    refusals.push({
      tone: 'bad',
      title: 'Expired',
      detail: 'Every verification answers EXPIRED. Set a later expiry, or none, to use it again.',
    });
  }
  if (status === 'out_of_credits') {
    refusals.push({
      tone: 'bad',
      title: 'Out of credits',
      detail: key.credits?.refill
        ? `Verifications answer USAGE_EXCEEDED until its ${key.credits.refill.interval} refill to ${formatNumber(key.credits.refill.amount)}, or until credits are added.`
        : 'Verifications answer USAGE_EXCEEDED until credits are added.',
    });
  }
  const total = recent ? [...recent.values()].reduce((sum, count) => sum + count, 0) : 0;
  const limited = recent?.get('RATE_LIMITED') ?? 0;
  const rateLimited = total >= RATE_LIMITED_MIN_CALLS && limited / total >= RATE_LIMITED_SHARE;
  if (rateLimited) {
    const limits = (key.ratelimits ?? [])
      .map((limit) => `${limit.name}: ${formatNumber(limit.limit)} per ${formatDuration(limit.duration)}`)
      .join(', ');
    refusals.push({
      tone: 'warn',
      title: 'Rate limited',
      detail: `${percent.format(limited / total)} of its ${formatCount(total, 'verification')} in the last hour were refused by a rate limit${limits ? ` (${limits})` : ''}.`,
    });
  }
  const low =
    remaining !== null &&
    hasLowCredits(
      {
        enabled: key.enabled,
        expires: key.expires,
        remainingCredits: remaining,
        refillAmount: key.credits?.refill?.amount,
      },
      now,
    );
  if (low) {
    refusals.push({
      tone: 'warn',
      title: 'Low on credits',
      detail: `${formatCount(remaining ?? 0, 'credit')} left: verifications are refused once they are spent.`,
    });
  }
  const expiringSoon = status === 'enabled' && key.expires !== undefined && key.expires - now < EXPIRING_SOON_MS;
  if (expiringSoon) {
    refusals.push({
      tone: 'warn',
      title: 'Expires soon',
      detail: 'It stops verifying when it expires. Move its expiry, or reroll it, before then.',
    });
  }
  if (status === 'disabled') return { label: 'Disabled', tone: 'muted', refusals };
  if (status === 'expired') return { label: 'Expired', tone: 'bad', refusals };
  if (status === 'out_of_credits') return { label: 'Out of credits', tone: 'warn', refusals };
  if (rateLimited) return { label: 'Rate limited', tone: 'warn', refusals };
  if (low) return { label: 'Low credits', tone: 'warn', refusals };
  if (expiringSoon) return { label: 'Expires soon', tone: 'warn', refusals };
  return { label: 'Enabled', tone: 'good', refusals };
}
