import { useDocumentTitle } from '../useDocumentTitle.ts';
import { PermissionsSection } from './PermissionsSection.tsx';
import { RolesSection } from './RolesSection.tsx';

export function RolesAndPermissions() {
  useDocumentTitle('Roles & permissions');
  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Roles &amp; permissions</h1>
      </div>
      <p className="page-intro">
        The permissions your own API checks when it verifies a key. Keys get them directly or through roles.
      </p>
      <RolesSection />
      <PermissionsSection />
    </>
  );
}
