import { Link } from '../router.tsx';
import { useDocumentTitle } from '../useDocumentTitle.ts';

export function NotFound() {
  useDocumentTitle('Page not found');
  return (
    <>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is no such page in the dashboard. <Link to="/apis">Go to the APIs</Link>.
      </p>
    </>
  );
}
