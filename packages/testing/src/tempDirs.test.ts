import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOwnedTempDir, sweepStaleTempDirs } from './tempDirs.ts';

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid as number;
}

let parent: string;
beforeEach(async () => {
  parent = await mkdtemp(join(tmpdir(), 'sweep-'));
});
afterEach(() => rm(parent, { recursive: true, force: true }));

async function runDir(name: string, files: Record<string, string>, ageMs = 0): Promise<string> {
  const dir = join(parent, `keyplane-pg-${name}`);
  await mkdir(join(dir, 'pg'), { recursive: true });
  for (const [file, content] of Object.entries(files)) await writeFile(join(dir, file), content);
  const when = new Date(Date.now() - ageMs);
  await utimes(dir, when, when);
  return dir;
}

describe('sweepStaleTempDirs', () => {
  it('keeps the cluster of a test run that is still going', async () => {
    const live = await createOwnedTempDir(parent);
    await sweepStaleTempDirs(parent);
    expect(existsSync(live)).toBe(true);
  });

  it('keeps a directory whose postmaster still runs, whoever owned it', async () => {
    const dir = await runDir('orphan', { 'owner.pid': String(deadPid()), 'pg/postmaster.pid': `${process.pid}\n/x\n` });
    await sweepStaleTempDirs(parent);
    expect(existsSync(dir)).toBe(true);
  });

  it('removes the cluster of a run that has ended', async () => {
    const dir = await runDir('ended', { 'owner.pid': String(deadPid()), 'pg/postmaster.pid': `${deadPid()}\n` });
    await sweepStaleTempDirs(parent);
    expect(existsSync(dir)).toBe(false);
  });

  it('leaves a directory with no owner alone unless it is a day old', async () => {
    const fresh = await runDir('being-created', {});
    const old = await runDir('legacy', {}, 25 * 60 * 60 * 1000);
    await sweepStaleTempDirs(parent);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(old)).toBe(false);
  });

  it('touches nothing without the prefix', async () => {
    const other = join(parent, 'something-else');
    await mkdir(other);
    await sweepStaleTempDirs(parent);
    expect(existsSync(other)).toBe(true);
  });
});
