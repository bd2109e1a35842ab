import type { EntityManager } from '@keyplane/db';
import type { Services } from './services.ts';

/** Everything a procedure may use, with no transport in it: what tests build directly. */
export interface Context {
  /** A fork of the entity manager for this request alone. */
  em: EntityManager;
  requestId: string;
  /** The raw `Authorization` header, checked by the root-key middleware. */
  authorization: string | undefined;
  vaultMasterKey: Uint8Array | undefined;
  services: Services;
}

export function createContextInner(options: Context): Context {
  return options;
}
