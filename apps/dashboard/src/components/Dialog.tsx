import { X } from 'lucide-react';
import { Dialog as Primitive } from 'radix-ui';
import { type ReactNode, useRef } from 'react';

interface DialogProps {
  title: string;
  open: boolean;
  onClose: () => void;
  /** The body (`.dialog-body`) and footer (`.dialog-footer`), or anything for the dialog to hold. */
  children: ReactNode;
  /** Room for wide forms (the create-key dialog, the root-key permission picker). */
  wide?: boolean;
}

/**
 * A modal dialog (Radix): focus stays inside it, Escape and the close button close it, and the
 * page behind is inert. Focus goes to its first field on open (or a `data-autofocus` control), and
 * back to whatever had it on close, or to the page's heading when that is gone (a deleted row's menu).
 * A click outside does not close it: a slip of the mouse must not lose what was typed.
 */
export function Dialog({ title, open, onClose, children, wide }: DialogProps) {
  const opener = useRef<HTMLElement | null>(null);
  return (
    <Primitive.Root
      open={open}
      onOpenChange={(next) => {
        if (!next) onClose();
      }}
    >
      <Primitive.Portal>
        <Primitive.Overlay className="dialog-overlay" />
        <Primitive.Content
          className={wide ? 'dialog-content wide' : 'dialog-content'}
          aria-describedby={undefined}
          onPointerDownOutside={(event) => event.preventDefault()}
          onOpenAutoFocus={(event) => {
            opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
            event.preventDefault();
            const content = event.currentTarget as HTMLElement;
            const first = content.querySelector<HTMLElement>(
              '[data-autofocus], .dialog-body input:not([type="hidden"]), .dialog-body select, .dialog-body textarea',
            );
            (first ?? content).focus();
          }}
          onCloseAutoFocus={(event) => {
            if (opener.current?.isConnected) return;
            event.preventDefault();
            document.querySelector<HTMLElement>('main h1')?.focus();
          }}
        >
          <header className="dialog-header">
            <Primitive.Title asChild>
              <h2>{title}</h2>
            </Primitive.Title>
            <Primitive.Close asChild>
              <button type="button" className="icon ghost" aria-label="Close">
                <X size={16} aria-hidden="true" />
              </button>
            </Primitive.Close>
          </header>
          {children}
        </Primitive.Content>
      </Primitive.Portal>
    </Primitive.Root>
  );
}
