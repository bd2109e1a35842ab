import { router } from '../../trpc.ts';
import { addPasskey } from './addPasskey.ts';
import { listPasskeys } from './listPasskeys.ts';
import { passkeyRegistrationOptions } from './passkeyRegistrationOptions.ts';
import { passkeySignInOptions } from './passkeySignInOptions.ts';
import { removePasskey } from './removePasskey.ts';
import { renamePasskey } from './renamePasskey.ts';
import { signInWithPasskey } from './signInWithPasskey.ts';

export const accountRouter = router({
  passkeyRegistrationOptions,
  addPasskey,
  listPasskeys,
  renamePasskey,
  removePasskey,
  passkeySignInOptions,
  signInWithPasskey,
});
