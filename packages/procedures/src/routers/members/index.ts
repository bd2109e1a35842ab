import { router } from '../../trpc.ts';
import { createPasswordReset } from './createPasswordReset.ts';
import { inviteMember } from './inviteMember.ts';
import { listInvitations } from './listInvitations.ts';
import { listMembers } from './listMembers.ts';
import { removeMember } from './removeMember.ts';
import { revokeInvitation } from './revokeInvitation.ts';
import { updateMember } from './updateMember.ts';

export const membersRouter = router({
  listMembers,
  inviteMember,
  updateMember,
  removeMember,
  listInvitations,
  revokeInvitation,
  createPasswordReset,
});
