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

  it('writes a line longer than a whole batch, whole and in its place', async () => {
    const output = new BufferedOutput({ stream: createWriteStream('', { fd, autoClose: false }) });
    const long = `${'ü'.repeat(100_000)}\n`;
    output.write('before\n');
    output.write(long);
    output.write('after\n');
    await flushed(output);
    expect(written()).toBe(`before\n${long}after\n`);
  });

  it('never changes a batch the stream still holds, whatever is written after it', async () => {
    const held: { chunk: Uint8Array; text: string; done: () => void }[] = [];
    const stream = {
      writableLength: 0,
      on: () => stream,
      write(chunk: Uint8Array, done: () => void) {
        held.push({ chunk, text: Buffer.from(chunk).toString(), done });
        return true;
      },
    };
    const output = new BufferedOutput({ stream });
    output.write('first batch\n');
    output.flush(() => {});
    for (let n = 0; n < 5000; n++) output.write(`line ${n} of the next batches\n`);
    output.flush(() => {});
    expect(held.length).toBe(2);
    expect(Buffer.from(held[0]?.chunk ?? []).toString()).toBe('first batch\n');
    expect(held[0]?.text).toBe('first batch\n');
    for (const { done } of held) done();
  });

  it('uses the memory of a batch again once the stream has written it, and not before', () => {
    const held: { chunk: Uint8Array; done: (error?: Error | null) => void }[] = [];
    const stream = {
      writableLength: 0,
      on: () => stream,
      write(chunk: Uint8Array, done: (error?: Error | null) => void) {
        held.push({ chunk, done });
        return true;
      },
    };
    const output = new BufferedOutput({ stream });
    const text = (index: number) => Buffer.from(held[index]?.chunk ?? []).toString();
    output.write('first\n');
    output.flush(() => {});
    output.write('second\n');
    output.flush(() => {});
    held[0]?.done();
    output.write('third\n');
    output.flush(() => {});
    // The second batch is still held: the third took the first one's memory, written by then.
    expect(held[2]?.chunk.buffer).toBe(held[0]?.chunk.buffer);
    expect(held[2]?.chunk.buffer).not.toBe(held[1]?.chunk.buffer);
    expect([text(1), text(2)]).toEqual(['second\n', 'third\n']);
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
      maxPendingBytes: 20,
      onDropped: (lines) => dropped.push(lines),
    });
    for (let n = 0; n < 8; n++) output.write(`line ${n}\n`);
    await flushed(output);
    expect(written()).toBe('line 0\nline 1\n');
    expect(dropped).toEqual([6]);
  });
});
