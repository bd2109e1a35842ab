import { describe, expect, it } from 'vitest';
import { accentVariables, contrastRatio, DEFAULT_ACCENT, safeColour, safeLinkUrl, safeLogoUrl } from './brand.ts';

describe('safeColour', () => {
  it.each([
    ['#1a2B3c', '#1a2b3c'],
    ['#abc', '#aabbcc'],
  ])('takes the hex colour %s as %s', (value, expected) => {
    expect(safeColour(value)).toBe(expected);
  });

  it.each([
    'red',
    '#12345',
    '#1234567',
    'rgb(0,0,0)',
    '#fff;background:url(https://evil.test)',
    'var(--x)',
    '',
    null,
    42,
  ])('leaves out %s', (value) => {
    expect(safeColour(value)).toBeUndefined();
  });
});

describe('safeLogoUrl', () => {
  it('takes an https URL', () => {
    expect(safeLogoUrl('https://cdn.example.com/logo.svg')).toBe('https://cdn.example.com/logo.svg');
  });

  it.each([
    'http://cdn.example.com/logo.svg',
    'javascript:alert(1)',
    'data:image/svg+xml,<svg/>',
    '//cdn.example.com/logo.svg',
    'https://user:secret@cdn.example.com/logo.svg',
    'not a url',
    undefined,
  ])('leaves out %s', (value) => {
    expect(safeLogoUrl(value)).toBeUndefined();
  });
});

describe('safeLinkUrl', () => {
  it.each(['https://example.com/settings', 'http://localhost:3000/back', 'http://127.0.0.1:8080/'])(
    'takes %s',
    (url) => {
      expect(safeLinkUrl(url)).toBe(new URL(url).href);
    },
  );

  it.each(['http://example.com/', 'javascript:history.back()', 'ftp://example.com/'])('leaves out %s', (url) => {
    expect(safeLinkUrl(url)).toBeUndefined();
  });
});

describe('accentVariables', () => {
  it('draws white on a dark accent and ink on a light one, each readable (WCAG AA)', () => {
    for (const colour of ['#0b3d91', '#ffd60a', '#e11d48', '#22c55e', '#777777', '#000000', '#ffffff']) {
      const variables = accentVariables(colour);
      expect(contrastRatio(variables['--accent'] ?? '', variables['--on-accent'] ?? '')).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("uses the provider's colour as text only when it reads on white", () => {
    expect(accentVariables('#0b3d91')['--accent-text']).toBe('#0b3d91');
    expect(accentVariables('#ffd60a')['--accent-text']).toBe(DEFAULT_ACCENT);
  });

  it("falls back to the page's own accent", () => {
    expect(accentVariables(undefined)['--accent']).toBe(DEFAULT_ACCENT);
  });
});
