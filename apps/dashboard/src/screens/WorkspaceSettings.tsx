export function WorkspaceSettings() {
  return <h1 tabIndex={-1}>Settings</h1>;
}
