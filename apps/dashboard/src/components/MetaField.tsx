import { useState } from 'react';
import { parseMeta } from '../format.ts';

interface MetaFieldProps {
  id: string;
  value: string;
  onChange: (text: string) => void;
  /** Why the text is not a JSON object, shown under the field. */
  problem: string | null;
}

/** A JSON-object textarea; its problem line keeps its height, so a message does not move the form. */
export function MetaField({ id, value, onChange, problem }: MetaFieldProps) {
  return (
    <div className="field">
      <label htmlFor={id}>Meta (JSON object)</label>
      <textarea
        id={id}
        rows={6}
        spellCheck={false}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={problem !== null}
        aria-describedby={`${id}-hint ${id}-problem`}
      />
      <p id={`${id}-hint`} className="hint">
        Empty for none.
      </p>
      <p id={`${id}-problem`} className="field-error">
        {problem}
      </p>
    </div>
  );
}

/** Checks the meta text on submit and keeps what is wrong with it for the field to show. */
export function useMetaCheck() {
  const [problem, setProblem] = useState<string | null>(null);
  /** The typed meta (null clears it), or undefined when the text is not a JSON object. */
  const check = (text: string) => {
    const parsed = parseMeta(text);
    setProblem('problem' in parsed ? parsed.problem : null);
    return 'problem' in parsed ? undefined : parsed.meta;
  };
  return { problem, check };
}
