// Where the string literals of a text are, line by line, for the whitespace tiers: blanks inside
// a literal are its content, never layout between tokens. One pass over the text with the
// state carried from line to line, so a line inside a multi-line literal (a Python docstring,
// a JavaScript template literal) is known to be inside one. The lexing is shared by the
// languages rt edits and errs on the side of "inside": `"..."`, `` `...` `` (over lines),
// `"""..."""` and `'''...'''` (over lines), `'...'` unless it follows a letter (`don't`) other
// than a string prefix (Python's r'', b'', f''); `//`, `#` and `/* */` comments are skipped.

/** A literal's content on one line: [first content offset, offset where it ends) in line coordinates. */
export type LiteralSpan = [number, number];

const PREFIX = /(?:^|[^\p{L}\p{N}_$])(?:[rRbBuUfF]|[rR][bBfF]|[bBfF][rR])$/u;
const WORD = /[\p{L}\p{N}_$]/u;

/** The spans of string-literal content on each line of `text` (lines split at "\n"). */
export function literalSpansByLine(text: string, check?: () => void): LiteralSpan[][] {
  const out: LiteralSpan[][] = [[]];
  let line = 0;
  let lineStart = 0;
  /** The open literal's closing delimiter, and where its content started on the current line. */
  let open: { close: string; multiline: boolean } | undefined;
  let from = 0;
  let blockComment = false;
  const newLine = (at: number): void => {
    if (open) {
      out[line].push([from - lineStart, at - lineStart]);
      if (!open.multiline) open = undefined;
    }
    line++;
    lineStart = at + 1;
    from = lineStart;
    out.push([]);
  };
  for (let i = 0; i < text.length; i++) {
    if (check && (i & 65535) === 0) check();
    const c = text[i];
    if (c === "\n") {
      newLine(i);
      continue;
    }
    if (open) {
      if (c === "\\") {
        if (text[i + 1] !== "\n") i++;
        continue;
      }
      if (text.startsWith(open.close, i)) {
        out[line].push([from - lineStart, i - lineStart]);
        i += open.close.length - 1;
        open = undefined;
      }
      continue;
    }
    if (blockComment) {
      if (c === "*" && text[i + 1] === "/") {
        blockComment = false;
        i++;
      }
      continue;
    }
    const prev = i > lineStart ? text[i - 1] : "\n";
    if (c === "/" && text[i + 1] === "*") {
      blockComment = true;
      i++;
      continue;
    }
    const lineComment =
      (c === "/" && text[i + 1] === "/" && prev !== ":") ||
      (c === "#" &&
        (prev === "\n" || prev === " " || prev === "\t") &&
        /^[ \t!]|^$|^\n/.test(text.slice(i + 1, i + 2)));
    if (lineComment) {
      const eol = text.indexOf("\n", i);
      i = (eol === -1 ? text.length : eol) - 1;
      continue;
    }
    if (c !== '"' && c !== "'" && c !== "`") continue;
    if (c === "'" && WORD.test(prev) && !PREFIX.test(text.slice(Math.max(lineStart, i - 3), i))) continue;
    const triple = c !== "`" && text[i + 1] === c && text[i + 2] === c;
    const delimiter = triple ? c.repeat(3) : c;
    open = { close: delimiter, multiline: triple || c === "`" };
    i += delimiter.length - 1;
    from = i + 1;
  }
  if (open) out[line].push([from - lineStart, text.length - lineStart]);
  return out;
}
