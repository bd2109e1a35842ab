import type { ReactNode } from 'react';

/** A titled part of a long form: its title and what it is for beside its fields when there is room (docs/dashboard.md). */
export function FormSection({
  title,
  description,
  children,
}: {
  title: string;
  description: string;
  children: ReactNode;
}) {
  return (
    <section className="form-section" aria-label={title}>
      <header>
        <h3 className="form-section-title">{title}</h3>
        <p className="form-section-description">{description}</p>
      </header>
      <div className="section-fields">{children}</div>
    </section>
  );
}
