/**
 * PostgreSQL array literals for the bulk parameters of the event writers and the credit spender.
 * pg turns an array parameter into a literal by quoting and escaping every element on a generic
 * path, which was most of the Node side of writing a batch of events; identifiers and numbers need
 * neither.
 */

/** What an array literal may hold without quotes: no delimiters, quotes, backslashes or spaces. */
const BARE_ELEMENT = /^[\w.:-]+$/;
/** Unquoted, this word is a null element. */
const NULL_WORD = /^null$/i;

/** A `text[]` literal; null elements stay null. */
export function textArrayLiteral(values: readonly (string | null)[]): string {
  let literal = '{';
  // A batch's columns hold runs of one value (one workspace, one hot key): each run is encoded once.
  let previous: string | null | undefined;
  let element = '';
  for (const [index, value] of values.entries()) {
    if (index > 0) literal += ',';
    if (value !== previous) {
      previous = value;
      element = value === null ? 'NULL' : textElement(value);
    }
    literal += element;
  }
  return `${literal}}`;
}

function textElement(value: string): string {
  if (BARE_ELEMENT.test(value) && !NULL_WORD.test(value)) return value;
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** A literal of numbers or booleans, for any numeric or `bool` array type. */
export function scalarArrayLiteral(values: readonly (number | boolean)[]): string {
  return `{${values.join(',')}}`;
}

/**
 * The elements of a `text[]` literal as {@link textArrayLiteral} writes it, for reading spooled
 * rows back; undefined for any other text.
 */
export function parseTextArrayLiteral(literal: string): (string | null)[] | undefined {
  if (!literal.startsWith('{') || !literal.endsWith('}')) return undefined;
  const elements: (string | null)[] = [];
  const end = literal.length - 1;
  let at = 1;
  while (at < end) {
    if (literal[at] === '"') {
      let element = '';
      for (at++; at < end && literal[at] !== '"'; at++) {
        if (literal[at] === '\\') at++;
        element += literal[at];
      }
      if (at >= end) return undefined;
      elements.push(element);
      at++;
    } else {
      const comma = literal.indexOf(',', at);
      const element = literal.slice(at, comma === -1 ? end : comma);
      if (!BARE_ELEMENT.test(element)) return undefined;
      elements.push(NULL_WORD.test(element) ? null : element);
      at += element.length;
    }
    if (at < end && literal[at++] !== ',') return undefined;
  }
  return elements;
}
