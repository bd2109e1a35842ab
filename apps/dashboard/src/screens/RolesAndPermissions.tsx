import { PermissionsSection } from './PermissionsSection.tsx';
import { RolesSection } from './RolesSection.tsx';

export function RolesAndPermissions() {
  return (
    <>
      <h1 tabIndex={-1}>Roles &amp; permissions</h1>
      <p className="hint">
        The permissions your own API checks when it verifies a key. Keys get them directly or through roles.
      </p>
      <RolesSection />
      <PermissionsSection />
    </>
  );
}
