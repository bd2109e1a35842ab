import { Search } from 'lucide-react';

interface TableSearchProps {
  id: string;
  label: string;
  placeholder: string;
  value: string;
  onChange: (text: string) => void;
}

/** A list's search box, labelled; the list asks the server once typing pauses (useTableUrlState). */
export function TableSearch({ id, label, placeholder, value, onChange }: TableSearchProps) {
  return (
    <search className="field">
      <label htmlFor={id}>{label}</label>
      <span className="relative flex items-center">
        <Search size={14} aria-hidden="true" className="pointer-events-none absolute left-2 text-muted" />
        <input
          id={id}
          type="search"
          className="w-64 max-w-full pl-7"
          placeholder={placeholder}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      </span>
    </search>
  );
}
