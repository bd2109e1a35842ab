import { outcomeStyle } from '../outcomes.ts';
import { type BadgeTone, StatusBadge } from './StatusBadge.tsx';

/** Refusals a customer causes (limits, credits) are warnings; a key that cannot verify at all is bad. */
const TONES: Record<string, BadgeTone> = {
  VALID: 'good',
  RATE_LIMITED: 'warn',
  USAGE_EXCEEDED: 'warn',
  INSUFFICIENT_PERMISSIONS: 'info',
  DISABLED: 'muted',
};

/** A verification's outcome in words, toned by how it refused (never by colour alone). */
export function OutcomeBadge({ outcome }: { outcome: string }) {
  return <StatusBadge label={outcomeStyle(outcome).label} tone={TONES[outcome] ?? 'bad'} title={outcome} />;
}
