import { useEffect } from 'react';

/** The product's name, last in every title. */
const PRODUCT = 'Keyplane';

/**
 * The browser tab's title for this screen, most specific part first ("payments-key-001 · Keys ·
 * payments-api"), so tabs and history tell screens apart. Parts not known yet (still loading) are left out.
 */
export function useDocumentTitle(...parts: (string | null | undefined | false)[]): void {
  const title = [...parts.filter((part): part is string => Boolean(part)), PRODUCT].join(' · ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}
