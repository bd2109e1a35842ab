// Verification outcomes in words, and the colour each is drawn in: the one mapping every chart,
// legend and list of verifications uses. Colours are told apart by the words too, never alone.

interface OutcomeStyle {
  label: string;
  color: string;
}

export const OUTCOMES: Record<string, OutcomeStyle> = {
  VALID: { label: 'Valid', color: '#2f855a' },
  RATE_LIMITED: { label: 'Rate limited', color: '#c05621' },
  USAGE_EXCEEDED: { label: 'Usage exceeded', color: '#b7791f' },
  INSUFFICIENT_PERMISSIONS: { label: 'Insufficient permissions', color: '#6b46c1' },
  DISABLED: { label: 'Disabled', color: '#4a5568' },
  EXPIRED: { label: 'Expired', color: '#2b6cb0' },
  NOT_FOUND: { label: 'Not found', color: '#c53030' },
};

/** The outcome's style; an outcome this dashboard does not know yet is shown by its code, in grey. */
export function outcomeStyle(code: string): OutcomeStyle {
  return OUTCOMES[code] ?? { label: code, color: '#718096' };
}

/** The order outcomes are stacked and listed in: valid first, then the known failures, then the rest. */
export function outcomeOrder(a: string, b: string): number {
  const known = Object.keys(OUTCOMES);
  const rank = (code: string) => (known.includes(code) ? known.indexOf(code) : known.length);
  return rank(a) - rank(b) || a.localeCompare(b);
}
