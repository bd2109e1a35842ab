export const USAGE = `Usage: keyplane <command> [options]

Commands:
  migrate
      Apply the database migrations this version has and the database has not (for an init job
      when the servers run with MIGRATE_ON_START=false); safe beside starting servers.
  bootstrap [--name NAME]
      Create a workspace and a root key with every permission on it.
  setup-link
      Print a new one-time link (valid 24 hours) that creates the first workspace's owner; only
      while it has no owner (once it has one, the owner invites people instead).
  root-keys create --workspace WORKSPACE_ID [--name NAME] [--permission PERMISSION]... [--expires UNIX_MS]
      Create a root key; repeat --permission for each grant (e.g. api.*.create_key).
  root-keys revoke ROOT_KEY_ID
      Revoke a root key.
  root-keys list --workspace WORKSPACE_ID
      List a workspace's root keys.
  vault enable WORKSPACE_ID
      Give a workspace a vault data key (needs VAULT_MASTER_KEY).
  rate-limit set WORKSPACE_ID --per-minute REQUESTS
      Limit the API requests the workspace's root keys may make per minute, across every node
      (429 workspace_rate_limited past it; 0 refuses every request).
  rate-limit clear WORKSPACE_ID
      Remove the workspace's API rate limit.
  help
      Show this help.

Options:
  --json      Print exactly one JSON object on stdout.
  -h, --help  Show this help.

Environment:
  DATABASE_URL      The server's PostgreSQL; unset, the embedded database in DATA_DIR is used.
  VAULT_MASTER_KEY  The server's vault master key (vault enable, bootstrap).
  PUBLIC_URL        The address people reach the server at (setup-link); unset: http://localhost:PORT.

Exit codes: 0 done, 1 failed, 2 bad arguments, 78 bad configuration.
`;
