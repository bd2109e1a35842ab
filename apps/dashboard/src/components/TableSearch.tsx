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
      <input
        id={id}
        type="search"
        placeholder={placeholder}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </search>
  );
}
