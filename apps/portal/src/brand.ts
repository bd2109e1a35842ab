// The provider's branding reaches the page from the server, which validated it when the portal was
// saved; the page checks it again before it shows any of it (docs/portal.md, The portal page): a
// value that does not pass is left out, never shown as it came.

/** `#rgb` or `#rrggbb`: the only colours a provider's primary colour may be. */
const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** The colour as `#rrggbb` when it is a hex colour, else undefined. */
export function safeColour(value: unknown): string | undefined {
  if (typeof value !== 'string' || !HEX_COLOUR.test(value)) return undefined;
  const digits = value.slice(1).toLowerCase();
  return digits.length === 3 ? `#${[...digits].map((digit) => digit + digit).join('')}` : `#${digits}`;
}

/** The logo's address when it is an `https:` URL with a host and no credentials, else undefined. */
export function safeLogoUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') return undefined;
  return url.href;
}

/** A link back to the provider (support, return): `https:`, or `http:` on a loopback host as in development. */
export function safeLinkUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return url.href;
}

/** WCAG 2 relative luminance of a `#rrggbb` colour. */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16) / 255);
  const [r = 0, g = 0, b = 0] = channels.map((channel) =>
    channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrastRatio(first: string, second: string): number {
  const [light, dark] = [luminance(first), luminance(second)].sort((a, b) => b - a) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const WHITE = '#ffffff';
/** Black, not a softer ink: white or black on any colour reaches 4.58:1, a softer ink may not. */
const INK = '#000000';
/** The page's own accent, when the provider gave none or one that did not pass. */
export const DEFAULT_ACCENT = '#2743d0';

/**
 * The CSS variables the stylesheet reads: the accent as a background, the text drawn on it (white or
 * black, whichever reads better: at least 4.58:1 on any colour, WCAG AA), and the accent as text on
 * the white page, which is the provider's colour if it reads on white, else the page's own.
 */
export function accentVariables(colour: string | undefined): Record<`--${string}`, string> {
  const accent = colour ?? DEFAULT_ACCENT;
  const onAccent = contrastRatio(accent, WHITE) >= contrastRatio(accent, INK) ? WHITE : INK;
  const accentText = contrastRatio(accent, WHITE) >= 4.5 ? accent : DEFAULT_ACCENT;
  return { '--accent': accent, '--on-accent': onAccent, '--accent-text': accentText };
}
