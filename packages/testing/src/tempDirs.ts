import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive } from '@keyplane/embedded';

const TEMP_PREFIX = 'keyplane-pg-';
/** Written first into a run's temporary directory: the pid of the test run that owns it. */
const OWNER_FILE = 'owner.pid';
/** A directory with no owner file (older runs left them) counts as stale only after this long. */
const UNOWNED_GRACE_MS = 24 * 60 * 60 * 1000;

async function pidIn(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const pid = Number.parseInt(text?.split('\n')[0] ?? '', 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Whether no process can be using a test run's temporary cluster: its owning test run and its
 * postmaster have both exited. Another run going on at the same time keeps its own.
 */
async function isStale(dir: string): Promise<boolean> {
  const postmaster = await pidIn(join(dir, 'pg', 'postmaster.pid'));
  if (postmaster !== undefined && isProcessAlive(postmaster)) return false;
  const owner = await pidIn(join(dir, OWNER_FILE));
  if (owner !== undefined) return !isProcessAlive(owner);
  const created = await stat(dir).catch(() => undefined);
  return created !== undefined && Date.now() - created.mtimeMs > UNOWNED_GRACE_MS;
}

/** Removes the temporary clusters of test runs that have ended, in `parent`. */
export async function sweepStaleTempDirs(parent: string): Promise<void> {
  for (const entry of await readdir(parent)) {
    const dir = join(parent, entry);
    if (entry.startsWith(TEMP_PREFIX) && (await isStale(dir))) await rm(dir, { recursive: true, force: true });
  }
}

/** A new temporary directory for this test run's cluster, marked as this process's from the start. */
export async function createOwnedTempDir(parent: string): Promise<string> {
  const dir = await mkdtemp(join(parent, TEMP_PREFIX));
  await writeFile(join(dir, OWNER_FILE), String(process.pid));
  return dir;
}
