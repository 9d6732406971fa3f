// A literal search of one file's bytes that prints what ripgrep would print
// for it: grep's second step, for the files it shows, without a second
// ripgrep process (see search in grepSearch.ts). Where the result could differ
// from ripgrep's, it gives up and the caller asks ripgrep.

const NEWLINE = 10;
const CR = 13;
/** Everything but line feeds: what is left after removing it counts lines. */
const NOT_NEWLINES = /[^\n]+/g;
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
export function literalOf(
  pattern: string,
  opts: { fixedStrings?: boolean; ignoreCase?: boolean; multiline?: boolean },
): string | undefined {
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
  // The bytes are searched where they are, not in a string copy of the file:
  // the copies of the files a rare pattern shows (hundreds of kilobytes) cost
  // a garbage collection in the middle of the search. Single bytes are found
  // through a plain Uint8Array view, whose indexOf is V8's own built-in:
  // Buffer's goes through a Node binding that costs more per call and allocates.
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  if (view.indexOf(0, start) !== -1) return undefined;
  const end = bytes.length;
  /** The start of the line holding offset `at`. */
  const lineStart = (at: number) => (at <= start ? start : Math.max(start, view.lastIndexOf(NEWLINE, at - 1) + 1));
  /** The end of the line starting at `s`, with its terminator (a final newline does not begin another line). */
  const lineEnd = (s: number) => {
    const nl = view.indexOf(NEWLINE, s);
    return nl === -1 ? end : nl + 1;
  };

  // Every matching line is counted; the starts of the first maxMatches + 1 are
  // kept (a printed match's after-context stops at the next matching line).
  // Lines are numbered only up to the last one printed: a file's later lines
  // are not walked.
  let count = 0;
  const matchStarts: number[] = [];
  for (let at = bytes.indexOf(literal, start); at !== -1; ) {
    const s = lineStart(at);
    count++;
    if (matchStarts.length <= maxMatches) matchStarts.push(s);
    const e = lineEnd(s);
    at = e < end ? bytes.indexOf(literal, e) : -1;
  }

  const lines: PrintedLine[] = [];
  // A cursor for line numbers: line `cursorLine` (0-based) starts at `cursor`.
  let cursor = start;
  let cursorLine = 0;
  /** The number (0-based) of the line starting at `s`, at or after the cursor. */
  const numberOf = (s: number) => {
    if (s > cursor) {
      // The newlines in between, counted by the regular expression engine in
      // one call. A loop here, once per line (thousands of lines in the files
      // a rare pattern shows), made V8 compile it with its optimizing compiler:
      // 10 ms of processor time taken from ripgrep's threads.
      cursorLine += bytes.toString("latin1", cursor, s).replace(NOT_NEWLINES, "").length;
      cursor = s;
    }
    return cursorLine;
  };
  /** Adds the line starting at `s`; false when ripgrep would cut it. */
  const print = (s: number, line: number, match: boolean) => {
    const e = lineEnd(s);
    if (e - s > maxColumns) return false;
    let textEnd = e;
    // The terminator, "\n" or "\r\n", is not part of the line (a lone "\r" at the very end is).
    if (textEnd > s && bytes[textEnd - 1] === NEWLINE) {
      textEnd--;
      if (textEnd > s && bytes[textEnd - 1] === CR) textEnd--;
    }
    lines.push({ line: line + 1, match, content: bytes.toString("utf8", s, textEnd) });
    return true;
  };
  let printedTo = start; // lines starting before this offset are printed (or passed over)
  for (let m = 0; m < count && m < maxMatches; m++) {
    const s = matchStarts[m];
    const line = numberOf(s);
    // Before-context: up to `before` lines back, not into lines already printed.
    const context: number[] = [];
    for (let c = s; context.length < before && c > printedTo; ) context.unshift((c = lineStart(c - 1)));
    for (let i = 0; i < context.length; i++) if (!print(context[i], line - context.length + i, false)) return undefined;
    if (!print(s, line, true)) return undefined;
    // After-context: up to `after` lines, stopping at the next matching line.
    const next = m + 1 < matchStarts.length ? matchStarts[m + 1] : end;
    let c = lineEnd(s);
    for (let i = 1; i <= after && c < next && c < end; i++, c = lineEnd(c))
      if (!print(c, line + i, false)) return undefined;
    printedTo = c;
  }
  return { count, lines };
}
