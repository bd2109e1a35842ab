import { PasskeysSection } from '../components/PasskeysSection.tsx';
import { useDocumentTitle } from '../useDocumentTitle.ts';

/**
 * The signed-in person's passkeys on a page of their own, until the account settings screen
 * (docs/dashboard.md) holds PasskeysSection among the person's other settings.
 */
export function AccountPasskeys() {
  useDocumentTitle('Passkeys');
  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Passkeys</h1>
      </div>
      <PasskeysSection />
    </>
  );
}
