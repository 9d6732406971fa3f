// Small text helpers of the outside check, written apart from rt's own (the
// point is an independent judge): lines, indentation, identifiers, encoding.
import type { OLang } from "./corpus.ts";

export const indentOf = (line: string): string => /^[ \t]*/.exec(line)![0];
export const isBlank = (line: string): boolean => line.trim() === "";
export const trimKey = (line: string): string => line.trim();

export function count(hay: string, needle: string): number {
  let n = 0;
  for (let p = hay.indexOf(needle); p !== -1; p = hay.indexOf(needle, p + 1)) n++;
  return n;
}

/** A file as lines, the final newline noted apart. */
export interface Lines {
  lines: string[];
  finalNewline: boolean;
}

export function toLines(text: string): Lines {
  const finalNewline = text.endsWith("\n");
  return { lines: (finalNewline ? text.slice(0, -1) : text).split("\n"), finalNewline };
}

export function fromLines(l: Lines): string {
  return l.lines.join("\n") + (l.finalNewline ? "\n" : "");
}

/** Stands for the Latin-1 byte 0xE9 in a text until it is encoded (see encode). */
export const LATIN1_E9 = "\uE000";

/** The bytes of a text: CRLF endings and a BOM on request; LATIN1_E9 becomes the single byte 0xE9 (not UTF-8). */
export function encode(text: string, opts: { crlf?: boolean; bom?: boolean } = {}): Buffer {
  let t = opts.crlf ? text.replace(/\n/g, "\r\n") : text;
  if (opts.bom) t = "\uFEFF" + t;
  const parts = t.split(LATIN1_E9);
  const out: Buffer[] = [];
  parts.forEach((p, i) => {
    if (i > 0) out.push(Buffer.from([0xe9]));
    out.push(Buffer.from(p, "utf8"));
  });
  return Buffer.concat(out);
}

/** The indentation unit of a file: "\t", or the commonest step between space indentations (2 or 4, else 4). */
export function unitOf(lines: string[]): string {
  const tabbed = lines.filter((l) => l.startsWith("\t") && !isBlank(l)).length;
  const spaced = lines.filter((l) => l.startsWith("  ") && !isBlank(l)).length;
  if (tabbed > spaced) return "\t";
  const steps = new Map<number, number>();
  let prev = 0;
  for (const l of lines) {
    if (isBlank(l) || /^\s*\*/.test(l)) continue;
    const w = indentOf(l).length;
    if (w > prev && w - prev <= 8) steps.set(w - prev, (steps.get(w - prev) ?? 0) + 1);
    prev = w;
  }
  let best = 4;
  let n = 0;
  for (const [s, c] of steps) if ((s === 2 || s === 4) && c > n) [best, n] = [s, c];
  return " ".repeat(best);
}

const KEYWORDS = new Set(
  (
    "and as assert async await break case catch class const continue debugger def default del delete do elif else enum except export extends false finally for from function " +
    "global if import in instanceof interface is lambda let match new nonlocal none not null or pass private protected public raise return self static super switch this throw " +
    "true try type typeof undefined var void while with yield None True False struct union unsigned signed int char long short float double bool boolean sizeof " +
    "package func go defer chan map range select fn impl mut pub use mod crate where loop trait dyn ref move final abstract synchronized native transient volatile throws implements " +
    "string number object any unknown never readonly declare namespace module keyof infer require exports define auto register extern goto inline restrict typedef"
  ).split(" "),
);

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/g;

/** Identifiers of a line a change may rename: not keywords, 3+ characters, outside comments. */
export function identifiers(line: string, lang: OLang): Array<{ at: number; name: string }> {
  const code = stripComment(line, lang);
  const out: Array<{ at: number; name: string }> = [];
  for (const m of code.matchAll(IDENT)) {
    if (m[0].length < 3 || KEYWORDS.has(m[0]) || KEYWORDS.has(m[0].toLowerCase())) continue;
    // Not part of a number (1e10), an escape (\n...) or a property key after a dot is fine.
    const prev = code[m.index! - 1] ?? "";
    if (/[0-9\\$]/.test(prev)) continue;
    out.push({ at: m.index!, name: m[0] });
  }
  return out;
}

/** The comment marker of a language's line comments, or null. */
export function lineComment(lang: OLang): string | null {
  switch (lang) {
    case "py":
    case "yaml":
    case "toml":
      return "#";
    case "json":
    case "html":
      return null;
    default:
      return "//";
  }
}

/** Where a line comment starts in a line (outside simple string literals), or -1. */
export function commentStart(line: string, lang: OLang): number {
  const marker = lineComment(lang);
  if (!marker) return -1;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "`") {
      quote = ch;
      continue;
    }
    if (line.startsWith(marker, i)) {
      // `//` inside a URL-ish token or a regex is not a comment start we trust.
      if (marker === "//" && i > 0 && /[:\/\\]/.test(line[i - 1])) return -1;
      return i;
    }
  }
  return -1;
}

export function stripComment(line: string, lang: OLang): string {
  const c = commentStart(line, lang);
  return c === -1 ? line : line.slice(0, c);
}

/**
 * The chain of enclosing lines of every line by indentation (the nearest
 * earlier lines with less indentation, outermost first), as text. The outside
 * check's structure judge: a line whose chain changed moved into another
 * block (or its block's header changed). Blank lines get null.
 */
export function ancestorChains(lines: string[]): Array<string[] | null> {
  const stack: Array<{ w: number; text: string }> = [];
  const width = (s: string): number => {
    let w = 0;
    for (const ch of indentOf(s)) w = ch === "\t" ? w + 8 - (w % 8) : w + 1;
    return w;
  };
  return lines.map((l) => {
    if (isBlank(l)) return null;
    const w = width(l);
    while (stack.length > 0 && stack[stack.length - 1].w >= w) stack.pop();
    const chain = stack.map((s) => s.text);
    stack.push({ w, text: l.trim() });
    return chain;
  });
}
