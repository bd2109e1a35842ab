import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';

interface EmptyStateProps {
  icon: LucideIcon;
  title: string;
  /** What the list is for and what to do next. */
  children: ReactNode;
  /** The next step: usually the button that creates the first one. */
  action?: ReactNode;
}

/** What a list shows while it has nothing: what belongs here and the way to the first one. */
export function EmptyState({ icon: Icon, title, children, action }: EmptyStateProps) {
  return (
    <div className="empty-state">
      <span className="empty-icon" aria-hidden="true">
        <Icon size={20} />
      </span>
      <h3>{title}</h3>
      <div className="text-sm">{children}</div>
      {action ? <div className="actions justify-center">{action}</div> : null}
    </div>
  );
}
