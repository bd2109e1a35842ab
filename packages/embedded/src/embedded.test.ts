import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { letPostgresUserReach } from './embedded.ts';

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('letting the postgres OS user reach the embedded cluster (as root)', () => {
  it('adds only the search bit for others to private directories above the cluster, and says which', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'kp-reach-')); // 0700, like a root home directory
    const cluster = join(scratch, 'project', '.data');
    await mkdir(cluster, { recursive: true, mode: 0o700 });
    const notices: string[] = [];
    await letPostgresUserReach([cluster], (message) => notices.push(message));
    expect(await modeOf(scratch)).toBe(0o701);
    expect(await modeOf(cluster)).toBe(0o701);
    expect(notices).toEqual(expect.arrayContaining([expect.stringContaining(`made ${scratch} traversable`)]));
  });

  it('leaves directories others can already traverse as they are', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'kp-reach-'));
    const open = join(scratch, 'open');
    await mkdir(open, { mode: 0o755 });
    const notices: string[] = [];
    await letPostgresUserReach([open], (message) => notices.push(message));
    expect(await modeOf(open)).toBe(0o755);
    expect(notices.filter((message) => message.includes(open))).toEqual([]);
  });
});
