import { closeSync, createWriteStream, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BufferedOutput } from '../src/bufferedOutput.ts';

let dir: string;
let path: string;
let fd: number;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyplane-output-'));
  path = join(dir, 'out.log');
  fd = openSync(path, 'w');
});

afterEach(async () => {
  closeSync(fd);
  await rm(dir, { recursive: true, force: true });
});

const flushed = (output: BufferedOutput) => new Promise<void>((resolve) => output.flush(resolve));
const written = () => readFileSync(path, 'utf8');

describe('a buffered output', () => {
  it('writes every line in order, over many batches, by the time flush calls back', async () => {
    const output = new BufferedOutput({ stream: createWriteStream('', { fd, autoClose: false }) });
    const expected: string[] = [];
    for (let turn = 0; turn < 20; turn++) {
      for (let n = 0; n < 500; n++) {
        const line = `{"turn":${turn},"n":${n},"text":"${'é'.repeat(n % 7)}"}\n`;
        expected.push(line);
        output.write(line);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await flushed(output);
    expect(written()).toBe(expected.join(''));
  });

  it('holds a line back until others can join it, and flush writes it at once', async () => {
    const output = new BufferedOutput({ stream: createWriteStream('', { fd, autoClose: false }) });
    output.write('one\n');
    expect(written()).toBe('');
    await flushed(output);
    expect(written()).toBe('one\n');
  });

  it('drops lines past its bound rather than holding them, and reports how many once written', async () => {
    const dropped: number[] = [];
    const output = new BufferedOutput({
      stream: createWriteStream('', { fd, autoClose: false }),
      maxPendingChars: 20,
      onDropped: (lines) => dropped.push(lines),
    });
    for (let n = 0; n < 8; n++) output.write(`line ${n}\n`);
    await flushed(output);
    expect(written()).toBe('line 0\nline 1\n');
    expect(dropped).toEqual([6]);
  });
});
