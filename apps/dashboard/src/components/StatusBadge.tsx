import { type KeyStatus, keyStatus } from '@keyplane/core/rules';

export type BadgeTone = 'good' | 'bad' | 'warn' | 'info' | 'muted';

/** A short status in words with a tone (never the tone alone). */
export function StatusBadge({ label, tone, title }: { label: string; tone: BadgeTone; title?: string }) {
  return (
    <span className={`badge ${tone}`} title={title}>
      {label}
    </span>
  );
}

const KEY_STATUS_BADGES: Record<KeyStatus, { label: string; tone: BadgeTone }> = {
  enabled: { label: 'Enabled', tone: 'good' },
  disabled: { label: 'Disabled', tone: 'muted' },
  expired: { label: 'Expired', tone: 'bad' },
  out_of_credits: { label: 'Out of credits', tone: 'warn' },
};

interface KeyStatusBadgeProps {
  keyData: { enabled: boolean; expires?: number; credits?: { remaining: number | null } };
}

/** A key's status as its next verification would answer it (packages/core keyStatus). */
export function KeyStatusBadge({ keyData }: KeyStatusBadgeProps) {
  const status = keyStatus(
    { enabled: keyData.enabled, expires: keyData.expires, remainingCredits: keyData.credits?.remaining },
    Date.now(),
  );
  return <StatusBadge {...KEY_STATUS_BADGES[status]} />;
}
