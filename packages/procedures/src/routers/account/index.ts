import { router } from '../../trpc.ts';
import { acceptInvitation } from './acceptInvitation.ts';
import { addPasskey } from './addPasskey.ts';
import { changePassword } from './changePassword.ts';
import { describeInvitation } from './describeInvitation.ts';
import { listPasskeys } from './listPasskeys.ts';
import { listSessions } from './listSessions.ts';
import { me } from './me.ts';
import { passkeyRegistrationOptions } from './passkeyRegistrationOptions.ts';
import { passkeySignInOptions } from './passkeySignInOptions.ts';
import { removePasskey } from './removePasskey.ts';
import { renamePasskey } from './renamePasskey.ts';
import { resetPassword } from './resetPassword.ts';
import { setUpOwner } from './setUpOwner.ts';
import { signIn } from './signIn.ts';
import { signInOptions } from './signInOptions.ts';
import { signInWithPasskey } from './signInWithPasskey.ts';
import { signOutEverywhere } from './signOutEverywhere.ts';
import { switchWorkspace } from './switchWorkspace.ts';
import { updateProfile } from './updateProfile.ts';

// A person's way in and their own account: internal, for the dashboard (docs/dashboard.md#accounts).
export const accountRouter = router({
  acceptInvitation,
  changePassword,
  describeInvitation,
  listSessions,
  me,
  resetPassword,
  setUpOwner,
  signIn,
  signInOptions,
  signOutEverywhere,
  switchWorkspace,
  updateProfile,
  // Passkeys (WebAuthn): a person's own, and signing in with one.
  passkeyRegistrationOptions,
  addPasskey,
  listPasskeys,
  renamePasskey,
  removePasskey,
  passkeySignInOptions,
  signInWithPasskey,
});
