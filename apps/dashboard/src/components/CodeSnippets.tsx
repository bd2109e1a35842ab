import { Tabs } from 'radix-ui';
import { useState } from 'react';
import { createKeySnippetsFor, type Snippet, verifySnippetsFor } from '../snippets.ts';
import { CopyButton } from './CopyButton.tsx';

export type { Snippet };

/** Code in a few languages, one tab each, each with its copy button. */
export function CodeSnippets({ label, snippets }: { label: string; snippets: Snippet[] }) {
  const [chosen, setChosen] = useState(snippets[0]?.id ?? '');
  return (
    <Tabs.Root value={chosen} onValueChange={setChosen} className="snippets">
      <Tabs.List aria-label={label} className="tab-list snippet-tabs">
        {snippets.map((snippet) => (
          <Tabs.Trigger key={snippet.id} value={snippet.id} asChild>
            <button type="button">{snippet.label}</button>
          </Tabs.Trigger>
        ))}
      </Tabs.List>
      {snippets.map((snippet) => (
        <Tabs.Content key={snippet.id} value={snippet.id} forceMount hidden={chosen !== snippet.id}>
          <div className="code-block">
            <pre data-testid={`snippet-${snippet.id}`}>{snippet.code}</pre>
            <CopyButton value={snippet.code} label={`the ${snippet.label} code`} />
          </div>
        </Tabs.Content>
      ))}
    </Tabs.Root>
  );
}

/** Where the server is, as the browser reached it: what a backend on the same network calls. */
const serverOrigin = () => window.location.origin;

/** Verifying a key (the one just created, or a placeholder), on this server. */
export const verifySnippets = (key?: string) => verifySnippetsFor(serverOrigin(), key);

/** Creating a key for the API given, on this server. */
export const createKeySnippets = (apiId: string) => createKeySnippetsFor(serverOrigin(), apiId);
