// A literal search of one file's bytes that prints what ripgrep would print
// for it: grep's second step, for the files it shows, without a second
// ripgrep process (see search in grepSearch.ts). Where the result could differ
// from ripgrep's, it gives up and the caller asks ripgrep.

const NEWLINE = 10;
const CR = 13;
/**
 * Characters with a meaning of their own in a Rust regex outside a class
 * (a backslash is read with what it escapes). The others (`#`, `&`, `-`, `~`, spaces) mean something only inside a class or a
 * `(?x)` group, which need `[` or `(`.
 */
const SYNTAX = ".+*?()|[]{}^$";
/** ASCII punctuation that stands for itself when escaped: not `\<` and `\>` (word boundaries), nor letters or digits (classes, assertions). */
const ESCAPED_LITERALS = "!\"#$%&'()*+,-./:;=?@[\\]^_`{|}~";

/**
 * The text a ripgrep pattern matches literally, or undefined when it is a
 * regular expression. A pattern without regex syntax is literal, and so is one
 * whose only syntax is escaped ASCII punctuation (`getMutex\(`). Case-folding
 * searches, empty patterns and patterns with a line break are not (ripgrep
 * reads a line break in a pattern as two patterns).
 */
export function literalOf(pattern: string, opts: { fixedStrings?: boolean; ignoreCase?: boolean; multiline?: boolean }): string | undefined {
  if (opts.ignoreCase || opts.multiline || pattern === "" || /[\r\n]/.test(pattern)) return undefined;
  if (opts.fixedStrings) return pattern;
  let text = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1];
      if (next === undefined || !ESCAPED_LITERALS.includes(next)) return undefined;
      text += next;
      i++;
    } else if (SYNTAX.includes(c)) return undefined;
    else text += c;
  }
  return text === "" ? undefined : text;
}

export interface PrintedLine {
  line: number;
  match: boolean;
  content: string;
}

/** A file's matching lines counted, and the lines printed for them. */
export interface FileLines {
  count: number;
  lines: PrintedLine[];
}

/**
 * The lines ripgrep prints for `literal` in a file (`--line-number --crlf`
 * with the given context), and its number of matching lines; or undefined
 * where ripgrep reads the file in a way this does not copy: a UTF-16 byte
 * order mark (ripgrep transcodes), a NUL byte (its binary handling), or a
 * printed line longer than `maxColumns` bytes with its terminator (ripgrep
 * cuts those). A UTF-8 byte order mark is skipped, as ripgrep skips it.
 * Lines are given up to the `maxMatches`-th match and its after-context; all
 * matching lines are counted.
 */
export function literalLines(
  bytes: Buffer,
  literal: Buffer,
  before: number,
  after: number,
  maxColumns: number,
  maxMatches = Infinity,
): FileLines | undefined {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return undefined;
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  // Searched as latin1 text, one character per byte, so that offsets are byte
  // offsets and the search is the string built-in's (Buffer.indexOf costs a
  // call into C++ for each line).
  const text = bytes.toString("latin1");
  if (text.indexOf("\0", start) !== -1) return undefined;
  const needle = literal.toString("latin1");
  // Where each line starts; a final newline does not begin another line.
  const starts: number[] = [];
  if (start < text.length) starts.push(start);
  for (let nl = text.indexOf("\n", start); nl !== -1 && nl + 1 < text.length; nl = text.indexOf("\n", nl + 1)) starts.push(nl + 1);
  const lineCount = starts.length;
  /** The end of line k with its terminator (the next line's start, or the end of the file). */
  const endOf = (k: number) => (k + 1 < lineCount ? starts[k + 1] : text.length);

  const matching: number[] = [];
  let k = 0;
  for (let at = text.indexOf(needle, start); at !== -1; ) {
    while (k + 1 < lineCount && starts[k + 1] <= at) k++;
    matching.push(k);
    const next = endOf(k);
    at = next < text.length ? text.indexOf(needle, next) : -1;
  }

  const lines: PrintedLine[] = [];
  let printedTo = 0; // lines before this index are printed (or passed over)
  for (let m = 0; m < matching.length && m < maxMatches; m++) {
    const line = matching[m];
    const nextMatch = m + 1 < matching.length ? matching[m + 1] : lineCount;
    const from = Math.max(printedTo, line - before);
    const to = Math.min(nextMatch, line + after + 1, lineCount);
    for (let i = from; i < to; i++) {
      const s = starts[i];
      const e = endOf(i);
      if (e - s > maxColumns) return undefined;
      let textEnd = e;
      // The terminator, "\n" or "\r\n", is not part of the line (a lone "\r" at the very end is).
      if (textEnd > s && bytes[textEnd - 1] === NEWLINE) {
        textEnd--;
        if (textEnd > s && bytes[textEnd - 1] === CR) textEnd--;
      }
      lines.push({ line: i + 1, match: i === line, content: bytes.toString("utf8", s, textEnd) });
    }
    printedTo = to;
  }
  return { count: matching.length, lines };
}
