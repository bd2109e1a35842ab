import type { PermissionTuple } from '@keyplane/core/rules';
import { type LucideIcon, MoreHorizontal } from 'lucide-react';
import { DropdownMenu } from 'radix-ui';
import { useMissingPermissionCheck, useReadOnly } from '../access.ts';

export interface RowAction {
  label: string;
  icon?: LucideIcon;
  onSelect: () => void;
  /** Drawn in red: it deletes, revokes or cuts off. */
  danger?: boolean;
  /** What the action needs: without it the item is disabled and says why. */
  permission?: PermissionTuple | readonly PermissionTuple[];
  disabled?: boolean;
}

interface RowMenuProps {
  /** What the row is, for the button's name: "Actions for payments-key-001". */
  label: string;
  actions: (RowAction | 'separator')[];
}

/**
 * A row's actions behind one small button (Radix dropdown menu: arrow keys, typeahead, Escape), so
 * a table is not a column of red Delete buttons. An action the root key may not take is listed,
 * disabled, with the reason.
 */
export function RowMenu({ label, actions }: RowMenuProps) {
  const missingFor = useMissingPermissionCheck();
  const readOnly = useReadOnly();
  // A session that may change nothing is offered only what reads (open, copy): no disabled changes.
  const offered = readOnly
    ? withoutStraySeparators(
        actions.filter(
          (action) => action === 'separator' || action.permission === undefined || !missingFor(action.permission),
        ),
      )
    : actions;
  if (offered.length === 0) return null;
  return (
    // Not modal: a dialog an item opens takes the focus and the page, not the menu.
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        <button type="button" className="icon ghost" aria-label={`Actions for ${label}`} title="Actions">
          <MoreHorizontal size={16} aria-hidden="true" />
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu-content" align="end" sideOffset={4}>
          {offered.map((action, index) => {
            if (action === 'separator') {
              // biome-ignore lint/suspicious/noArrayIndexKey: separators have no identity but their place.
              return <DropdownMenu.Separator key={`separator-${index}`} className="menu-separator" />;
            }
            const missing = action.permission ? missingFor(action.permission) : undefined;
            const Icon = action.icon;
            return (
              <DropdownMenu.Item
                key={action.label}
                className={action.danger ? 'menu-item danger' : 'menu-item'}
                disabled={action.disabled || missing !== undefined}
                onSelect={action.onSelect}
                title={missing}
              >
                {Icon ? <Icon size={14} aria-hidden="true" /> : null}
                <span className="flex flex-col">
                  {action.label}
                  {missing ? <span className="text-xs text-muted">{missing}</span> : null}
                </span>
              </DropdownMenu.Item>
            );
          })}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** The actions without separators at either end or next to each other. */
function withoutStraySeparators(actions: (RowAction | 'separator')[]): (RowAction | 'separator')[] {
  return actions.filter(
    (action, index) =>
      action !== 'separator' || (index > 0 && index < actions.length - 1 && actions[index - 1] !== 'separator'),
  );
}
