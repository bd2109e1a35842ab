// The rules that need no Node API, for the dashboard (a browser bundle) to judge exactly as the
// server does: what a root key's permissions allow, a key's status and prefixes, webhook endpoints' settings,
// and what a person's role allows.
export * from './keyPrefix.ts';
export * from './keyStatus.ts';
export * from './permissions.ts';
export * from './team/passwordPolicy.ts';
export * from './team/roles.ts';
export * from './webhookEndpoints.ts';
