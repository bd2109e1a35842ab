import { standingOf, TEAM_ROLES, type TeamRole } from '@keyplane/core/rules';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Ban, KeyRound, MailPlus, UserCog, UserMinus } from 'lucide-react';
import { useId, useState } from 'react';
import {
  MANAGE_MEMBERS_PERMISSION,
  READ_MEMBERS_PERMISSION,
  sessionQueryOptions,
  useMissingPermission,
} from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { RowMenu } from '../components/RowMenu.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { formatTime } from '../format.ts';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { useWholeList } from '../useWholeList.ts';

type Member = RouterOutputs['members']['listMembers']['data'][number];
type Invitation = RouterOutputs['members']['listInvitations']['data'][number];

/** What each role may do, in a sentence (packages/core/src/team/roles.ts). */
export const ROLE_DESCRIPTIONS: Record<TeamRole, string> = {
  owner: 'Everything, including members, root keys and ownership.',
  admin: 'Everything but ownership: members, root keys, APIs, keys and the rest.',
  member: 'APIs, keys, identities, roles and permissions, rate limits, webhooks, analytics; not members or root keys.',
  viewer: 'Reads everything, changes nothing, never sees a decrypted key.',
};

const ROLE_NAMES: Record<TeamRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', viewer: 'Viewer' };

/** A one-time link just made (an invitation, a password reset), shown to copy. */
interface IssuedLink {
  kind: 'invitation' | 'reset';
  to: string;
  url: string;
  expiresAt: number;
  /** Whether the server sent it by email (with SMTP_URL set); unknown when it does not say. */
  emailed?: boolean;
}

/**
 * The workspace's people and pending invitations, for those who manage members (owners, admins, a
 * root key with `workspace.*.manage_members`): invite, change a role, remove, revoke an invitation,
 * issue a password-reset link, each confirmed first. The server judges authority (nobody above
 * their own role, the last owner stays, nobody changes their own role); its refusals show in the dialog.
 */
export function Members() {
  useDocumentTitle('Members');
  const missing = useMissingPermission(READ_MEMBERS_PERMISSION);
  // The link an invitation or a password reset just made: above the lists until dismissed.
  const [issued, setIssued] = useState<IssuedLink | null>(null);
  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Members</h1>
        {missing ? null : <InviteButton onIssued={setIssued} />}
      </div>
      <p className="page-intro">
        The people who sign in to this workspace, each with a role. Owners and admins invite people by a single-use
        link, change roles and remove people; nobody grants a role above their own or changes their own.
      </p>
      {missing ? (
        <p className="note" role="status">
          {missing} Owners, admins and viewers see the workspace’s members; owners and admins manage them.
        </p>
      ) : (
        <>
          {issued ? <IssuedLinkPanel link={issued} onDismiss={() => setIssued(null)} /> : null}
          <MemberLists onIssued={setIssued} />
        </>
      )}
    </>
  );
}

function InviteButton({ onIssued }: { onIssued: (link: IssuedLink) => void }) {
  const [inviting, setInviting] = useState(false);
  return (
    <>
      <PermittedButton permission={MANAGE_MEMBERS_PERMISSION} className="primary" onClick={() => setInviting(true)}>
        <MailPlus size={16} aria-hidden="true" />
        Invite member
      </PermittedButton>
      {inviting ? <InviteDialog onIssued={onIssued} onClose={() => setInviting(false)} /> : null}
    </>
  );
}

/** The roles this session may grant: none above its own standing (the server checks the same). */
function useGrantableRoles(): TeamRole[] {
  const session = useQuery(sessionQueryOptions);
  const data = session.data;
  if (!data) return [];
  const standing = data.person ? data.person.role : standingOf({ kind: 'rootKey', permissions: data.permissions });
  if (!standing) return [];
  return TEAM_ROLES.slice(TEAM_ROLES.indexOf(standing));
}

function RoleSelect({
  id,
  value,
  onChange,
  roles,
}: {
  id: string;
  value: TeamRole;
  onChange: (role: TeamRole) => void;
  roles: readonly TeamRole[];
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Role</label>
      <select
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value as TeamRole)}
        aria-describedby={`${id}-description`}
      >
        {roles.map((role) => (
          <option key={role} value={role}>
            {ROLE_NAMES[role]}
          </option>
        ))}
      </select>
      <p id={`${id}-description`} className="hint">
        {ROLE_DESCRIPTIONS[value]}
      </p>
    </div>
  );
}

function InviteDialog({ onClose, onIssued }: { onClose: () => void; onIssued: (link: IssuedLink) => void }) {
  const queryClient = useQueryClient();
  const roles = useGrantableRoles();
  const id = useId();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<TeamRole>('member');
  const invite = useMutation(
    trpc.members.inviteMember.mutationOptions({
      onSuccess: (result) => {
        onIssued({
          kind: 'invitation',
          to: email.trim(),
          url: result.url,
          expiresAt: result.expiresAt,
          emailed: result.emailed,
        });
        onClose();
        return queryClient.invalidateQueries({ queryKey: trpc.members.listInvitations.pathKey() });
      },
    }),
  );
  return (
    <FormDialog
      title="Invite member"
      open
      onClose={onClose}
      onSubmit={() => invite.mutate({ email: email.trim(), role })}
      submitLabel="Invite"
      mutation={invite}
      permission={MANAGE_MEMBERS_PERMISSION}
    >
      <div className="field">
        <label htmlFor={`${id}-email`}>Email</label>
        <input
          id={`${id}-email`}
          type="email"
          required
          autoComplete="off"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
      </div>
      <RoleSelect id={`${id}-role`} value={role} onChange={setRole} roles={roles.length > 0 ? roles : ['viewer']} />
      <p className="hint">
        The invitation is a single-use link, valid for 72 hours. It is emailed when this server can send email;
        otherwise you copy it and send it yourself.
      </p>
    </FormDialog>
  );
}

function IssuedLinkPanel({ link, onDismiss }: { link: IssuedLink; onDismiss: () => void }) {
  const what = link.kind === 'invitation' ? `Invitation for ${link.to}` : `Password-reset link for ${link.to}`;
  return (
    <section className="secret-panel" aria-labelledby="issued-link-title">
      <h2 id="issued-link-title">{what}</h2>
      <p className="text-sm" role="status">
        {link.emailed === true
          ? `It was emailed to ${link.to}. You can also copy the link and send it yourself.`
          : link.emailed === false
            ? `It was not emailed (this server sends no email): copy the link and send it to ${link.to} yourself.`
            : `Copy the link and send it to ${link.to}.`}{' '}
        Anyone holding it can use it once, until {formatTime(link.expiresAt)}; it is not shown again.
      </p>
      <div className="link-panel">
        <code data-testid="issued-link">{link.url}</code>
        <CopyButton value={link.url} label="the link" />
      </div>
      <div className="actions mt-2">
        <button type="button" onClick={onDismiss}>
          Done
        </button>
      </div>
    </section>
  );
}

type Pending =
  | { action: 'role'; member: Member }
  | { action: 'remove'; member: Member }
  | { action: 'reset'; member: Member }
  | { action: 'revoke'; invitation: Invitation };

function MemberLists({ onIssued }: { onIssued: (link: IssuedLink) => void }) {
  const queryClient = useQueryClient();
  const session = useQuery(sessionQueryOptions);
  const ownUserId = session.data?.person?.userId;
  const members = useWholeList(trpc.members.listMembers, {});
  const invitations = useWholeList(trpc.members.listInvitations, {});
  const [pending, setPending] = useState<Pending | null>(null);
  const close = () => setPending(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.members.pathKey() });

  const memberActions = (member: Member) => [
    {
      label: 'Change role',
      icon: UserCog,
      onSelect: () => setPending({ action: 'role', member }),
      permission: MANAGE_MEMBERS_PERMISSION,
    },
    {
      label: 'Issue password-reset link',
      icon: KeyRound,
      onSelect: () => setPending({ action: 'reset', member }),
      permission: MANAGE_MEMBERS_PERMISSION,
    },
    'separator' as const,
    {
      label: 'Remove from workspace',
      icon: UserMinus,
      danger: true,
      onSelect: () => setPending({ action: 'remove', member }),
      permission: MANAGE_MEMBERS_PERMISSION,
    },
  ];

  return (
    <>
      <section aria-labelledby="people-title" className="mb-6">
        <h2 id="people-title">People</h2>
        <DataTable
          caption="People in this workspace"
          columns={['Name', 'Email', 'Role', 'Last sign-in', 'Actions']}
          query={members}
          rows={members.data?.rows}
          loadingLabel="members"
          emptyMessage="Nobody has an account in this workspace yet. Invite someone."
          rowKey={(member) => member.userId}
          renderCells={(member) => (
            <>
              <th scope="row">
                {member.name}
                {member.userId === ownUserId ? <span className="text-muted"> (you)</span> : null}
              </th>
              <td>{member.email}</td>
              <td data-phone="badge">
                <StatusBadge label={ROLE_NAMES[member.role]} tone={member.role === 'owner' ? 'info' : 'muted'} />
              </td>
              <td>
                <RelativeTime epochMs={member.lastSignInAt} none="Never" />
              </td>
              <td data-phone="menu">
                {member.userId === ownUserId ? (
                  <span className="visually-hidden">Your own membership: change it from another owner’s account.</span>
                ) : (
                  <RowMenu label={member.name} actions={memberActions(member)} />
                )}
              </td>
            </>
          )}
        />
      </section>
      <section aria-labelledby="invitations-title">
        <h2 id="invitations-title">Pending invitations</h2>
        <DataTable
          caption="Invitations not yet accepted"
          columns={['Email', 'Role', 'Invited by', 'Expires', 'Actions']}
          query={invitations}
          rows={invitations.data?.rows}
          loadingLabel="invitations"
          emptyMessage="No invitation is waiting to be accepted."
          rowKey={(invitation) => invitation.invitationId}
          renderCells={(invitation) => (
            <>
              <th scope="row">{invitation.email}</th>
              <td data-phone="badge">
                <StatusBadge label={ROLE_NAMES[invitation.role]} tone="muted" />
              </td>
              <td>{invitation.invitedBy?.email ?? 'A root key'}</td>
              <td>
                <RelativeTime epochMs={invitation.expiresAt} />
              </td>
              <td data-phone="menu">
                <RowMenu
                  label={`invitation for ${invitation.email}`}
                  actions={[
                    {
                      label: 'Revoke invitation',
                      icon: Ban,
                      danger: true,
                      onSelect: () => setPending({ action: 'revoke', invitation }),
                      permission: MANAGE_MEMBERS_PERMISSION,
                    },
                  ]}
                />
              </td>
            </>
          )}
        />
      </section>
      {pending?.action === 'role' ? (
        <ChangeRoleDialog member={pending.member} onClose={close} onDone={refresh} />
      ) : null}
      {pending?.action === 'remove' ? <RemoveDialog member={pending.member} onClose={close} onDone={refresh} /> : null}
      {pending?.action === 'reset' ? (
        <ResetDialog
          member={pending.member}
          onClose={close}
          onIssued={(link) => {
            onIssued(link);
            close();
          }}
        />
      ) : null}
      {pending?.action === 'revoke' ? (
        <RevokeDialog invitation={pending.invitation} onClose={close} onDone={refresh} />
      ) : null}
    </>
  );
}

interface ActionDialogProps {
  member: Member;
  onClose: () => void;
  onDone: () => Promise<unknown>;
}

function ChangeRoleDialog({ member, onClose, onDone }: ActionDialogProps) {
  const roles = useGrantableRoles();
  const id = useId();
  const [role, setRole] = useState<TeamRole>(member.role);
  const update = useMutation(
    trpc.members.updateMember.mutationOptions({
      onSuccess: async () => {
        await onDone();
        onClose();
      },
    }),
  );
  // Offered: the roles this session may grant, and the member's own (so the select shows it).
  const offered = TEAM_ROLES.filter((candidate) => candidate === member.role || roles.includes(candidate));
  return (
    <ConfirmDialog
      title="Change role"
      open
      confirmLabel="Change role"
      pending={update.isPending || role === member.role}
      error={update.error}
      onConfirm={() => update.mutate({ userId: member.userId, role })}
      onClose={onClose}
    >
      <p>
        Change the role of <strong>{member.name}</strong> ({member.email}), now {ROLE_NAMES[member.role].toLowerCase()}?
        Their sessions take the new role at their next request.
      </p>
      <div className="mt-3">
        <RoleSelect id={`${id}-role`} value={role} onChange={setRole} roles={offered} />
      </div>
    </ConfirmDialog>
  );
}

function RemoveDialog({ member, onClose, onDone }: ActionDialogProps) {
  const remove = useMutation(
    trpc.members.removeMember.mutationOptions({
      onSuccess: async () => {
        await onDone();
        onClose();
      },
    }),
  );
  return (
    <ConfirmDialog
      title="Remove member"
      open
      confirmLabel="Remove member"
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate({ userId: member.userId })}
      onClose={onClose}
    >
      <p>
        Remove <strong>{member.name}</strong> ({member.email}) from this workspace? They are signed out of it at once,
        on every server. Their account stays for other workspaces they belong to.
      </p>
    </ConfirmDialog>
  );
}

function ResetDialog({
  member,
  onClose,
  onIssued,
}: {
  member: Member;
  onClose: () => void;
  onIssued: (link: IssuedLink) => void;
}) {
  const reset = useMutation(
    trpc.members.createPasswordReset.mutationOptions({
      onSuccess: (result) =>
        onIssued({ kind: 'reset', to: member.email, url: result.url, expiresAt: result.expiresAt }),
    }),
  );
  return (
    <ConfirmDialog
      title="Issue password-reset link"
      open
      confirmLabel="Issue link"
      pending={reset.isPending}
      error={reset.error}
      onConfirm={() => reset.mutate({ userId: member.userId })}
      onClose={onClose}
    >
      <p>
        Issue a single-use link with which <strong>{member.name}</strong> ({member.email}) chooses a new password? Send
        it to them only: whoever holds it can set the password.
      </p>
    </ConfirmDialog>
  );
}

function RevokeDialog({
  invitation,
  onClose,
  onDone,
}: {
  invitation: Invitation;
  onClose: () => void;
  onDone: () => Promise<unknown>;
}) {
  const revoke = useMutation(
    trpc.members.revokeInvitation.mutationOptions({
      onSuccess: async () => {
        await onDone();
        onClose();
      },
    }),
  );
  return (
    <ConfirmDialog
      title="Revoke invitation"
      open
      confirmLabel="Revoke invitation"
      pending={revoke.isPending}
      error={revoke.error}
      onConfirm={() => revoke.mutate({ invitationId: invitation.invitationId })}
      onClose={onClose}
    >
      <p>
        Revoke the invitation for <strong>{invitation.email}</strong>? Its link stops working at once; you can invite
        them again later.
      </p>
    </ConfirmDialog>
  );
}
