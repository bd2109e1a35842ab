// The password rules a form can state before it is sent, with no Node API (rules.ts: the dashboard
// imports them); passwords.ts enforces them on the server, with the check against common passwords.

/** Lengths in characters (code points), so a password of accented letters or emoji counts as typed. */
export const MIN_PASSWORD_LENGTH = 12;
/** Bounds the work one hash costs; far beyond any password a person or a password manager makes. */
export const MAX_PASSWORD_LENGTH = 256;
