import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The patch to @trpc/server's build carries much of the server's throughput
// (docs/decisions/0002-trpc-server-patch.md).
// An upgrade must not drop it without anyone noticing: patch-package fails the install when a patch
// no longer applies, and these tests fail when the patch is gone, made for another version, or not
// in effect in node_modules.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const patches = readdirSync(`${root}patches`).filter((name) => name.endsWith('.patch'));

/** `@trpc+server+11.25.2.patch` → ['@trpc/server', '11.25.2'] */
function patchedPackage(file: string): [name: string, version: string] {
  const match = /^(.+)\+([^+]+)\.patch$/.exec(file);
  if (!match?.[1] || !match[2]) throw new Error(`not a patch-package file name: ${file}`);
  return [match[1].replaceAll('+', '/'), match[2]];
}

describe('dependency patches', () => {
  it('include the one to @trpc/server', () => {
    expect(patches.map((file) => patchedPackage(file)[0])).toContain('@trpc/server');
  });

  it.each(patches)('%s was made for the installed version', (file) => {
    const [name, version] = patchedPackage(file);
    const installed = JSON.parse(readFileSync(`${root}node_modules/${name}/package.json`, 'utf8')) as {
      version: string;
    };
    expect(installed.version).toBe(version);
  });

  it.each(patches)('%s is in effect in node_modules', (file) => {
    // A patch that reverts cleanly is applied in full.
    expect(() =>
      execFileSync('git', ['apply', '--check', '--reverse', `patches/${file}`], { cwd: root, stdio: 'pipe' }),
    ).not.toThrow();
  });
});
