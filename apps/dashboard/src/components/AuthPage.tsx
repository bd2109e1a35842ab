import { KeyRound } from 'lucide-react';
import type { ReactNode } from 'react';
import { useDocumentTitle } from '../useDocumentTitle.ts';

/** The card the pages before a session share: sign-in, setting up the owner, an invitation, a reset. */
export function AuthPage({
  title,
  documentTitle = title,
  children,
}: {
  title: string;
  /** The browser tab's title, when shorter than the heading. */
  documentTitle?: string;
  children: ReactNode;
}) {
  useDocumentTitle(documentTitle);
  return (
    <main className="sign-in">
      <p className="brand mb-4">
        <span className="brand-mark" aria-hidden="true">
          <KeyRound size={14} strokeWidth={2.5} />
        </span>
        Keyplane
      </p>
      <h1 tabIndex={-1}>{title}</h1>
      {children}
    </main>
  );
}
