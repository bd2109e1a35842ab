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
  for (const [index, value] of values.entries()) {
    if (index > 0) literal += ',';
    if (value === null) literal += 'NULL';
    else if (BARE_ELEMENT.test(value) && !NULL_WORD.test(value)) literal += value;
    else literal += `"${value.replace(/[\\"]/g, '\\$&')}"`;
  }
  return `${literal}}`;
}

/** A literal of numbers or booleans, for any numeric or `bool` array type. */
export function scalarArrayLiteral(values: readonly (number | boolean)[]): string {
  return `{${values.join(',')}}`;
}
