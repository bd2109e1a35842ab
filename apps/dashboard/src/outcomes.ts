// Verification outcomes in words, and the colour each is drawn in: the one mapping every chart,
// legend and list of verifications uses. Colours are told apart by the words too, never alone.

interface OutcomeStyle {
  label: string;
  color: string;
}

// One hue each, far apart (a refusal by rate limit is amber, by credits magenta), at a lightness
// that reads on the light and the dark surface alike.
export const OUTCOMES: Record<string, OutcomeStyle> = {
  VALID: { label: 'Valid', color: '#22a55b' },
  RATE_LIMITED: { label: 'Rate limited', color: '#f59e0b' },
  USAGE_EXCEEDED: { label: 'Usage exceeded', color: '#d946ef' },
  INSUFFICIENT_PERMISSIONS: { label: 'Insufficient permissions', color: '#8b5cf6' },
  DISABLED: { label: 'Disabled', color: '#94a3b8' },
  EXPIRED: { label: 'Expired', color: '#0ea5e9' },
  NOT_FOUND: { label: 'Not found', color: '#ef4444' },
};

/** The outcome's style; an outcome this dashboard does not know yet is shown by its code, in grey. */
export function outcomeStyle(code: string): OutcomeStyle {
  return OUTCOMES[code] ?? { label: code, color: '#78716c' };
}

/** The order outcomes are stacked and listed in: valid first, then the known failures, then the rest. */
export function outcomeOrder(a: string, b: string): number {
  const known = Object.keys(OUTCOMES);
  const rank = (code: string) => (known.includes(code) ? known.indexOf(code) : known.length);
  return rank(a) - rank(b) || a.localeCompare(b);
}
