export function GettingStarted() {
  return <h1 tabIndex={-1}>Get started</h1>;
}
