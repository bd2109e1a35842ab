import { describe, expect, it } from 'vitest';
import { CopyRows } from './copyRows.ts';

/** Rows long enough that a few hundred of them outgrow the first buffer several times, some not ASCII. */
const rowsOf = (count: number) =>
  Array.from({ length: count }, (_, index) => `${index}\t${index % 7 === 0 ? 'ünï©ødé 😀' : 'x'.repeat(index % 300)}`);

describe('CopyRows', () => {
  it('gives back every row it was given, in order, across growth and multi-byte characters', () => {
    const rows = rowsOf(500);
    const copyRows = CopyRows.of(rows);
    expect(copyRows.length).toBe(500);
    expect([...copyRows]).toEqual(rows);
  });

  it("holds each row's UTF-8 bytes followed by a newline, as COPY reads them", () => {
    const copyRows = CopyRows.of(['a\tb', 'é', '']);
    expect(copyRows.bytes()).toEqual(Buffer.from('a\tb\né\n\n'));
    expect(copyRows.bytes(1, 2).toString()).toBe('é\n');
    expect(copyRows.bytes(2, 10).toString()).toBe('\n');
    expect(copyRows.bytes(3).length).toBe(0);
  });

  it('keeps bytes already handed out unchanged while rows are added and the buffer grows', () => {
    const copyRows = CopyRows.of(['first', 'second']);
    const handedOut = copyRows.bytes();
    for (const row of rowsOf(400)) copyRows.push(row);
    expect(handedOut.toString()).toBe('first\nsecond\n');
    expect(copyRows.bytes(0, 2).toString()).toBe('first\nsecond\n');
  });

  it('slices rows into a copy of their own, which later rows of the original do not reach', () => {
    const rows = rowsOf(300);
    const copyRows = CopyRows.of(rows);
    const middle = copyRows.slice(100, 200);
    const tail = copyRows.slice(250);
    copyRows.push('after');
    middle.push('added to the slice');
    expect([...middle]).toEqual([...rows.slice(100, 200), 'added to the slice']);
    expect([...tail]).toEqual(rows.slice(250));
    expect([...copyRows.slice(0, 0)]).toEqual([]);
    expect(copyRows.bytes(300).toString()).toBe('after\n');
  });
});
