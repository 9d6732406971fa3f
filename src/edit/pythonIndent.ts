// Python's indentation errors, which tree-sitter-python does not report: its
// grammar accepts an empty block, a stray indented line and a dedent to a level
// that was never opened, so `if x:` followed by an unindented line parses clean.
// These are the most common way a model breaks a Python file, and Python itself
// rejects them (IndentationError / TabError), so the edit check needs them.
//
// A small scan in the manner of CPython's tokenizer: strings (with prefixes,
// triple quotes, f-string replacement fields and their format specs), comments,
// brackets and backslash continuations are skipped so that only the first line
// of each logical line counts; its indentation is compared with a stack of open
// levels. Reported, like Python:
//   - "unexpected indent": deeper than the enclosing block without a line ending in `:`;
//   - "expected an indented block": a line ending in `:` not followed by a deeper line;
//   - "unindent does not match any outer indentation level";
//   - "unexpected unindent": a decorator followed by a shallower line;
//   - "inconsistent use of tabs and spaces in indentation" (TabError);
//   - "unterminated string literal": a quoted string the line ends inside (no
//     backslash continuation), or a triple-quoted one the file ends inside.
// Positions are 0-based rows and UTF-16 columns, like tree-sitter's.

export interface IndentProblem {
  row: number;
  column: number;
  index: number;
  message: string;
}

const PREFIX = /^(?:[rRuUbBfFtT]|[rR][bBfFtT]|[bBfFtT][rR])$/;

export function pythonIndentProblems(text: string): IndentProblem[] {
  const problems: IndentProblem[] = [];
  const n = text.length;
  let i = 0;
  let row = 0;
  let lineStart = 0;
  // Stack of open levels: [columns with tabs to 8, columns with tabs to 1].
  const stack: Array<[number, number]> = [[0, 0]];
  let depth = 0; // open brackets
  let lastSignificant = ""; // last token character of the current logical line
  let pendingBlock: { row: number; column: number; index: number } | null = null; // a logical line ended with ':'
  let atLogicalStart = true;
  let decorator = false; // the previous logical line was a decorator
  let lastColon = { row: 0, column: 0, index: 0 }; // where the last ':' of the logical line is

  const newline = (at: number) => {
    row++;
    lineStart = at + 1;
  };

  // Skips a string starting at the quote at `q`; returns the index after it.
  // A string the line (or, triple-quoted, the file) ends inside is an error.
  const skipString = (q: number, prefix: string): number => {
    const quote = text[q];
    const triple = text[q + 1] === quote && text[q + 2] === quote;
    const fstring = /[fFtT]/.test(prefix);
    const start = { row, column: q - prefix.length - lineStart, index: q - prefix.length };
    const unterminated = (): void => {
      problems.push({
        ...start,
        message: `unterminated ${triple ? "triple-quoted " : ""}string literal (detected at line ${row + 1})`,
      });
    };
    let j = q + (triple ? 3 : 1);
    while (j < n) {
      const c = text[j];
      if (c === "\\") {
        // In an f-string a backslash does not escape a brace: `\{{` is a backslash and an escaped brace.
        if (fstring && (text[j + 1] === "{" || text[j + 1] === "}")) {
          j++;
          continue;
        }
        if (text[j + 1] === "\n") newline(j + 1);
        else if (text[j + 1] === "\r" && text[j + 2] === "\n") {
          newline(j + 2);
          j++;
        }
        j += 2;
        continue;
      }
      if (c === "\n") {
        if (!triple) {
          unterminated();
          return j; // the line ends it
        }
        newline(j);
        j++;
        continue;
      }
      if (c === quote && (!triple || (text[j + 1] === quote && text[j + 2] === quote))) return j + (triple ? 3 : 1);
      if (fstring && c === "{") {
        if (text[j + 1] === "{") {
          j += 2;
          continue;
        }
        j = skipField(j + 1);
        continue;
      }
      j++;
    }
    unterminated();
    return n;
  };

  // Skips an f-string replacement field's expression (and format spec) from
  // just after its `{`; returns the index after the closing `}`.
  const skipField = (from: number): number => {
    let j = from;
    let nest = 0;
    while (j < n) {
      const c = text[j];
      if (c === "\n") newline(j);
      if (c === "'" || c === '"') {
        j = skipString(j, identifierBefore(j));
        continue;
      }
      if (c === "(" || c === "[" || c === "{") nest++;
      else if (c === ")" || c === "]") nest = Math.max(0, nest - 1);
      else if (c === "}") {
        if (nest === 0) return j + 1;
        nest--;
      } else if (c === ":" && nest === 0) return skipSpec(j + 1);
      else if (c === "!" && nest === 0 && text[j + 1] !== "=") {
        j += 2; // conversion: !r, !s, !a
        continue;
      }
      j++;
    }
    return n;
  };

  // A format spec: literal text up to the field's `}`, with nested fields.
  const skipSpec = (from: number): number => {
    let j = from;
    while (j < n) {
      const c = text[j];
      if (c === "\n") newline(j);
      if (c === "{") {
        j = skipField(j + 1);
        continue;
      }
      if (c === "}") return j + 1;
      j++;
    }
    return n;
  };

  const identifierBefore = (q: number): string => {
    let k = q;
    while (k > 0 && /[A-Za-z]/.test(text[k - 1]) && q - k < 2) k--;
    if (k > 0 && /[\w]/.test(text[k - 1])) return ""; // part of a longer name: not a prefix
    const p = text.slice(k, q);
    return PREFIX.test(p) ? p : "";
  };

  while (i < n) {
    if (atLogicalStart) {
      // Measure the indentation of this physical line.
      let col = 0;
      let alt = 0;
      let j = i;
      for (; j < n; j++) {
        const c = text[j];
        if (c === " ") {
          col++;
          alt++;
        } else if (c === "\t") {
          col = (Math.floor(col / 8) + 1) * 8;
          alt++;
        } else if (c === "\f") {
          col = 0;
          alt = 0;
        } else break;
      }
      const c = text[j];
      if (
        j >= n ||
        c === "\n" ||
        c === "#" ||
        (c === "\r" && text[j + 1] === "\n") ||
        (c === "\\" && text[j + 1] === "\n")
      ) {
        // Blank or comment-only line (or a lone continuation): no indentation meaning.
        if (c === "#") {
          while (j < n && text[j] !== "\n") j++;
        }
        if (c === "\\") j++;
        if (j < n && text[j] === "\r") j++;
        if (j < n) newline(j);
        i = j + 1;
        continue;
      }
      const at = { row, column: j - lineStart, index: j };
      const [top, topAlt] = stack[stack.length - 1];
      if (pendingBlock) {
        if (col > top) {
          if (alt <= topAlt) problems.push({ ...at, message: "inconsistent use of tabs and spaces in indentation" });
          stack.push([col, alt]);
        } else {
          problems.push({ ...at, message: `expected an indented block after line ${pendingBlock.row + 1}` });
          // The levels stay open: the lines after a misplaced one usually still
          // fit them, and reporting each of them would bury the one mistake.
        }
      } else if (col > top) {
        problems.push({ ...at, message: "unexpected indent" });
        stack.push([col, alt]);
      } else if (decorator && col < top) {
        // A decorator must be followed by its def or class at the same level.
        problems.push({ ...at, message: "unexpected unindent" });
        dedentTo(col, alt, at);
      } else {
        dedentTo(col, alt, at);
      }
      decorator = c === "@";
      pendingBlock = null;
      atLogicalStart = false;
      lastSignificant = "";
      i = j;
      continue;
    }
    const c = text[i];
    if (c === "\n") {
      newline(i);
      i++;
      if (depth === 0) {
        if (lastSignificant === ":") pendingBlock = lastColon;
        atLogicalStart = true;
      }
      continue;
    }
    if (c === "#") {
      while (i < n && text[i] !== "\n") i++;
      continue;
    }
    if (c === "\\" && (text[i + 1] === "\n" || (text[i + 1] === "\r" && text[i + 2] === "\n"))) {
      i += text[i + 1] === "\r" ? 2 : 1;
      newline(i);
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      i = skipString(i, identifierBefore(i));
      lastSignificant = "s";
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth = Math.max(0, depth - 1);
    if (c !== " " && c !== "\t" && c !== "\r" && c !== "\f") {
      lastSignificant = c;
      if (c === ":") lastColon = { row, column: i - lineStart, index: i };
    }
    i++;
  }
  if (!atLogicalStart && depth === 0 && lastSignificant === ":") pendingBlock = lastColon;
  if (pendingBlock) {
    problems.push({ ...pendingBlock, message: `expected an indented block after line ${pendingBlock.row + 1}` });
  }
  return problems;

  function dedentTo(col: number, alt: number, at: { row: number; column: number; index: number }): void {
    while (stack.length > 1 && stack[stack.length - 1][0] > col) stack.pop();
    const [top, topAlt] = stack[stack.length - 1];
    if (top !== col) {
      problems.push({ ...at, message: "unindent does not match any outer indentation level" });
      stack.push([col, alt]);
    } else if (topAlt !== alt) {
      problems.push({ ...at, message: "inconsistent use of tabs and spaces in indentation" });
    }
  }
}
