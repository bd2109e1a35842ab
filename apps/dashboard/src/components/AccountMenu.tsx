import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Check, ChevronDown, KeyRound, UserRound } from 'lucide-react';
import { DropdownMenu } from 'radix-ui';
import { navigate } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { StatusBadge } from './StatusBadge.tsx';

type Session = RouterOutputs['dashboard']['session'];

const ROLE_NAMES: Record<string, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', viewer: 'Viewer' };

/**
 * Who is signed in, in the top bar: a person's name and role, or the root key's name. A person's
 * menu holds their account settings and, when they belong to several workspaces, the switch between them.
 */
export function AccountMenu({ session }: { session: Session }) {
  const { person } = session;
  if (!person) {
    return (
      <span className="session-info" data-testid="signed-in-as">
        <KeyRound size={12} aria-hidden="true" className="inline" /> Signed in with root key{' '}
        {session.rootKeyName ?? session.rootKeyId}
      </span>
    );
  }
  return <PersonMenu person={person} />;
}

function PersonMenu({ person }: { person: NonNullable<Session['person']> }) {
  const queryClient = useQueryClient();
  const me = useQuery(trpc.account.me.queryOptions(undefined, { staleTime: 60_000 }));
  const workspaces = me.data?.workspaces ?? [];
  const switchWorkspace = useMutation(
    trpc.account.switchWorkspace.mutationOptions({
      onSuccess: async () => {
        // Nothing of the other workspace stays: every list is read again for this one.
        queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'dashboard' });
        await queryClient.invalidateQueries({ queryKey: trpc.dashboard.session.queryKey() });
        navigate('/apis');
      },
    }),
  );
  const role = ROLE_NAMES[person.role] ?? person.role;
  return (
    <>
      {switchWorkspace.error ? <ErrorMessage error={switchWorkspace.error} /> : null}
      <DropdownMenu.Root modal={false}>
        <DropdownMenu.Trigger asChild>
          <button type="button" className="ghost account-button" data-testid="signed-in-as">
            <UserRound size={16} aria-hidden="true" />
            {/* Named by what it shows ("Account: Ann Lee, Admin"); on a phone only the icon shows. */}
            <span className="visually-hidden">Account: </span>
            <span className="account-name">{person.name}</span>
            <span className="visually-hidden">, </span>
            <StatusBadge label={role} tone="muted" />
            <ChevronDown size={14} aria-hidden="true" />
          </button>
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content className="menu-content" align="end" sideOffset={4}>
            <div className="menu-identity">
              <p className="font-semibold">{person.name}</p>
              <p className="text-xs text-muted">{person.email}</p>
              <p className="text-xs text-muted">{role} of this workspace</p>
            </div>
            <DropdownMenu.Separator className="menu-separator" />
            <DropdownMenu.Item className="menu-item" onSelect={() => navigate('/account')}>
              <UserRound size={14} aria-hidden="true" />
              Account settings
            </DropdownMenu.Item>
            {workspaces.length > 1 ? (
              <>
                <DropdownMenu.Separator className="menu-separator" />
                <DropdownMenu.Label className="menu-label">Switch workspace</DropdownMenu.Label>
                <DropdownMenu.RadioGroup
                  value={me.data?.workspaceId}
                  onValueChange={(workspaceId) => {
                    if (workspaceId !== me.data?.workspaceId) switchWorkspace.mutate({ workspaceId });
                  }}
                >
                  {workspaces.map((workspace) => (
                    <DropdownMenu.RadioItem
                      key={workspace.workspaceId}
                      value={workspace.workspaceId}
                      className="menu-item"
                      disabled={switchWorkspace.isPending}
                    >
                      <span className="flex flex-col">
                        {workspace.name}
                        <span className="text-xs text-muted">{ROLE_NAMES[workspace.role] ?? workspace.role}</span>
                      </span>
                      <DropdownMenu.ItemIndicator className="menu-check">
                        <Check size={14} aria-hidden="true" />
                      </DropdownMenu.ItemIndicator>
                    </DropdownMenu.RadioItem>
                  ))}
                </DropdownMenu.RadioGroup>
              </>
            ) : null}
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
    </>
  );
}
