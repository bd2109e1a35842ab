import { type KeyboardEvent, type ReactNode, useId, useRef } from 'react';
import { navigateSearch, useSearch } from '../router.tsx';

interface Tab {
  name: string;
  content: ReactNode;
}

const TAB_PARAM = 'tab';

/** How the URL names a tab: "Settings" is `settings`. */
const tabSlug = (tab: Tab) => tab.name.toLowerCase().replaceAll(' ', '-');

/**
 * Tabs as the ARIA pattern has them: arrow keys move between tabs, Tab enters the panel. Every
 * panel stays mounted (hidden), so a form's edits or a table's state survive a look at another tab.
 * The selected tab is kept in the query string (`?tab=settings`), so Back and reload return to it;
 * the first tab is the default and leaves the URL as it is.
 */
export function Tabs({ label, tabs }: { label: string; tabs: Tab[] }) {
  const id = useId();
  const named = new URLSearchParams(useSearch()).get(TAB_PARAM);
  const selected = Math.max(
    0,
    tabs.findIndex((tab) => tabSlug(tab) === named),
  );
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);

  /** A click adds a history entry; arrow keys, passing over tabs on the way, replace it. */
  const setSelected = (index: number, options: { replace?: boolean } = {}) => {
    if (index === selected) return;
    const params = new URLSearchParams(window.location.search);
    const tab = tabs[index];
    if (index === 0 || !tab) params.delete(TAB_PARAM);
    else params.set(TAB_PARAM, tabSlug(tab));
    navigateSearch(params, options);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    const next = (selected + step + tabs.length) % tabs.length;
    setSelected(next, { replace: true });
    buttons.current[next]?.focus();
  };

  return (
    <div className="tabs">
      <div role="tablist" aria-label={label} className="tab-list">
        {tabs.map((tab, index) => (
          <button
            key={tab.name}
            ref={(button) => {
              buttons.current[index] = button;
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${index}`}
            aria-selected={index === selected}
            aria-controls={`${id}-panel-${index}`}
            tabIndex={index === selected ? 0 : -1}
            onClick={() => setSelected(index)}
            onKeyDown={onKeyDown}
          >
            {tab.name}
          </button>
        ))}
      </div>
      {tabs.map((tab, index) => (
        <div
          key={tab.name}
          role="tabpanel"
          id={`${id}-panel-${index}`}
          aria-labelledby={`${id}-tab-${index}`}
          hidden={index !== selected}
        >
          {tab.content}
        </div>
      ))}
    </div>
  );
}
