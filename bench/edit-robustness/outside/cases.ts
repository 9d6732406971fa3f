// The outside check's case generator. Each case is a call a model makes to
// rt's editing tools on a real file, and the INTENDED result: what a careful
// human would have written, defined here from the file's true lines, never
// from rt's code. rt must write exactly that, or refuse; any other write is
// wrong. A case whose intended result is null must be refused.
//
// The mistake models differ from the main benchmark's (cases.ts there, where a
// distortion of the model's copy runs uniformly through old and new text):
//   slip       the model re-types old_string from memory: one line it leaves
//              alone comes out different (a comment reworded or dropped, two
//              imports swapped, a line merged with the next or split at
//              another place, a blank line missing or added in the middle,
//              tabs on some lines only); its new_string is that same copy with
//              the change, so lines it left alone must keep the file's text;
//   format     the file's bytes around the edit: CRLF, a BOM, a Latin-1 byte on
//              the neighbouring line, a line thousands of characters long, no
//              newline at the end, edits at the first and last line;
//   ambiguity  the same line at two indentations, quoted at one of them, at
//              none of them, or without indentation;
//   reindent   new_string that changes indentation on purpose: a block
//              dedented out of its `if`, a statement added at the enclosing
//              level after a block, a line added as a block's first statement,
//              lines wrapped in a new block; through edit and edit_lines;
//   feature    regions holding decorators, async defs, match statements,
//              f-strings with nested quotes, triple-quoted strings, template
//              literals, regex literals; copied exactly or from the first
//              line's column (lines less indented, such as a template
//              literal's body, kept as they are);
//   newcomer   everyday edits copied exactly: rename a variable on one line,
//              add an import, add a parameter, wrap a statement in
//              try/except, delete a function, add a method to a class, change
//              a string literal with \n or quotes, two edits in one multi_edit,
//              write after read (and write without reading: must be refused);
//   languages  JSON, YAML, TOML, HTML, C, Java, Go, Rust: a value renamed, a
//              key or statement added, a line deleted, a comment reworded, a
//              block copied dedented.
import type { OFile, OLang } from "./corpus.ts";
import type { Rng } from "../rng.ts";
import {
  LATIN1_E9,
  commentStart,
  count,
  encode,
  fromLines,
  identifiers,
  indentOf,
  isBlank,
  lineComment,
  toLines,
  trimKey,
  unitOf,
  type Lines,
} from "./text.ts";

export type Group = "slip" | "format" | "ambiguity" | "reindent" | "feature" | "newcomer" | "languages";

export interface OCase {
  id: string;
  cls: string;
  group: Group;
  /** Where the file came from. */
  source: string;
  lang: OLang;
  /** The file's name in the scratch directory. */
  base: string;
  /** The file's bytes before the call. */
  bytes: Buffer;
  /** The file's text (LF, no BOM) for the oracles. */
  before: string;
  tool: "edit" | "edit_lines" | "multi_edit" | "write";
  args: Record<string, unknown>;
  /** The caller read the file before the call (edit_lines numbers, write). */
  readFirst: boolean;
  /** The bytes a careful human would have written, or null when the call must be refused. */
  intended: Buffer | null;
  /** The intended text (LF, no BOM) for the oracles. */
  intendedText: string | null;
  /** Lines of `before` (0-based, [start, end)) the intended edit replaces, and how many lines replace them. */
  region: { start: number; end: number; newCount: number };
}

// ------------------------------------------------------------------ lines with identities

interface Item {
  id: number;
  text: string;
}

const items = (lines: string[]): Item[] => lines.map((text, id) => ({ id, text }));
const texts = (its: Item[]): string[] => its.map((i) => i.text);

type Change =
  | { kind: "rename"; id: number; at: number; name: string; to: string }
  | { kind: "insert"; id: number; ref: number; deeper: boolean; payload: string; newId: number }
  | { kind: "delete"; id: number };

/** Applies a change to a list of items (the file's true lines or a model's copy of them), by identity. */
function applyChange(its: Item[], ch: Change, unit: string): Item[] {
  const out = its.map((i) => ({ ...i }));
  const k = out.findIndex((i) => i.id === ch.id);
  if (k === -1) throw new Error("change on a line the copy lacks");
  if (ch.kind === "rename") {
    // `at` counts from the end of the line's indentation, so a copy indented differently is renamed at the same word.
    const t = out[k].text;
    const ind = indentOf(t);
    const p = ind.length + ch.at;
    if (t.slice(p, p + ch.name.length) !== ch.name) throw new Error("rename target moved in the copy");
    out[k].text = t.slice(0, p) + ch.to + t.slice(p + ch.name.length);
  } else if (ch.kind === "insert") {
    const ref = out.find((i) => i.id === ch.ref)!;
    out.splice(k + 1, 0, { id: ch.newId, text: indentOf(ref.text) + (ch.deeper ? unit : "") + ch.payload });
  } else out.splice(k, 1);
  return out;
}

// ------------------------------------------------------------------ per-language details

function payloadFor(lang: OLang, n: number, context = ""): string {
  switch (lang) {
    case "py":
      return `rt_log("e${n}")`;
    case "js":
    case "mjs":
    case "ts":
      return `rtLog("e${n}");`;
    case "dts":
      return /^\s/.test(context) ? `rtProp${n}?: number;` : `declare const rtDecl${n}: number;`;
    case "json":
      return `"rtKey${n}": ${n},`;
    case "yaml":
      return `rt_key_${n}: ${n}`;
    case "toml":
      return `rt_key_${n} = ${n}`;
    case "html":
      return `<span>rt ${n}</span>`;
    case "go":
      return `rtLog(${n})`;
    case "rs":
      return `rt_log(${n});`;
    default:
      return `rt_log(${n});`;
  }
}

const CONTINUES = /[([{,\\+\-*/=&|.?:]$/;

/** Python: lines that start inside a triple-quoted string. */
function inTripleString(lines: string[]): boolean[] {
  const out: boolean[] = [];
  let open: string | null = null;
  for (const line of lines) {
    out.push(open !== null);
    for (const m of line.matchAll(/\\.|"""|'''|#|"|'/g)) {
      const t = m[0];
      if (t.startsWith("\\")) continue;
      if (open === null && t === "#") break;
      if (t === '"' || t === "'") continue;
      if (open === null) open = t;
      else if (open === t) open = null;
    }
  }
  return out;
}

/** Whether a new line at line i's level, or removing line i, keeps a simple statement list (heuristic; the oracles have the last word). */
function simpleLine(L: string[], i: number, lang: OLang, inString: boolean[]): boolean {
  const line = L[i];
  if (line === undefined || isBlank(line) || inString[i] || inString[i + 1]) return false;
  const t = line.trim();
  const next = L.slice(i + 1).find((l) => !isBlank(l));
  if (next !== undefined && indentOf(next).length > indentOf(line).length) return false;
  if (/^(\/\/|#|\/\*|\*)/.test(t) && lang !== "yaml" && lang !== "toml") return false;
  switch (lang) {
    case "py":
      return (
        !CONTINUES.test(stripTrailingComment(t, lang)) &&
        !/^(@|else|elif|except|finally|case|return|raise|break|continue|pass|yield)\b/.test(t) &&
        !/^["']/.test(t)
      );
    case "json":
      return /,$/.test(t) && next !== undefined && indentOf(next) === indentOf(line) && /^"/.test(next.trim());
    case "yaml":
      return (
        /^[\w.-]+:\s+[^|>\s&*!{\[]/.test(t) &&
        !/^- /.test(t) &&
        next !== undefined &&
        indentOf(next) === indentOf(line) &&
        /^[\w.-]+:/.test(next.trim())
      );
    case "toml":
      return /^[\w.-]+\s*=\s*\S/.test(t) && !/"""|'''/.test(t) && balanced(t);
    case "html":
      return /^<[a-zA-Z][^>]*>.*<\/[a-zA-Z]+>$/.test(t) && !/^<(html|head|body|table|tr|ul|ol|dl|select)\b/i.test(t);
    case "go":
      return (
        indentOf(line).length > 0 && !CONTINUES.test(t) && !/^(case|default|return|\})/.test(t) && !t.endsWith("{")
      );
    case "c":
    case "java":
    case "rs":
      return (
        indentOf(line).length >= (lang === "java" ? 8 : 2) &&
        /;$/.test(t) &&
        !/^(return|break|continue|case|default|#)/.test(t) &&
        balanced(t)
      );
    case "dts":
      return /;$/.test(t) && balanced(t);
    default:
      return /;$/.test(t) && !/^(return|break|continue|case|default|\}|import|export)/.test(t) && balanced(t);
  }
}

function balanced(t: string): boolean {
  let d = 0;
  for (const ch of t) {
    if ("([{".includes(ch)) d++;
    else if (")]}".includes(ch)) d--;
  }
  return d === 0;
}

function stripTrailingComment(t: string, lang: OLang): string {
  const c = commentStart(t, lang);
  return (c === -1 ? t : t.slice(0, c)).trimEnd();
}

/** A change on one of the region's lines (ids are region-relative), avoiding the lines in `avoid`. */
function pickChange(
  region: string[],
  fileLines: string[],
  regionStart: number,
  rng: Rng,
  lang: OLang,
  serial: number,
  unit: string,
  avoid: Set<number>,
  inString: boolean[],
): Change | null {
  const kinds = ["rename", "rename", "insert", "delete"] as const;
  for (let attempt = 0; attempt < 8; attempt++) {
    const kind = rng.pick(kinds);
    const cands = region.map((_, i) => i).filter((i) => !avoid.has(i) && !isBlank(region[i]));
    if (cands.length === 0) return null;
    const i = rng.pick(cands);
    if (kind === "rename") {
      const ids = identifiers(region[i], lang);
      if (ids.length === 0) continue;
      const x = rng.pick(ids);
      const ind = indentOf(region[i]).length;
      if (x.at < ind) continue;
      const to =
        lang === "py" || lang === "rs" || lang === "yaml" || lang === "toml" || lang === "c"
          ? `${x.name}_xq`
          : `${x.name}Xq`;
      return { kind, id: i, at: x.at - ind, name: x.name, to };
    }
    if (!simpleLine(fileLines, regionStart + i, lang, inString)) continue;
    if (kind === "insert")
      return { kind, id: i, ref: i, deeper: false, payload: payloadFor(lang, serial, region[i]), newId: 1000 };
    if (region.length >= 3) return { kind: "delete", id: i };
  }
  return null;
}

// ------------------------------------------------------------------ regions

interface FileCtx {
  f: OFile;
  L: Lines;
  lines: string[];
  keys: string[];
  unit: string;
  inString: boolean[];
}

function ctxOf(f: OFile): FileCtx {
  const L = toLines(f.text);
  const lines = L.lines;
  return {
    f,
    L,
    lines,
    keys: lines.map(trimKey),
    unit: unitOf(lines),
    inString: f.lang === "py" ? inTripleString(lines) : lines.map(() => false),
  };
}

function uniqueTrimmed(c: FileCtx, start: number, k: number): boolean {
  const want = c.keys.slice(start, start + k);
  let n = 0;
  outer: for (let i = 0; i + k <= c.keys.length; i++) {
    for (let j = 0; j < k; j++) if (c.keys[i + j] !== want[j]) continue outer;
    if (++n > 1) return false;
  }
  return n === 1;
}

/** How many windows of whole lines have these trimmed texts. */
function windowsOf(keys: string[], want: string[]): number {
  let n = 0;
  outer: for (let i = 0; i + want.length <= keys.length; i++) {
    for (let j = 0; j < want.length; j++) if (keys[i + j] !== want[j]) continue outer;
    n++;
  }
  return n;
}

function pickRegion(
  c: FileCtx,
  rng: Rng,
  minK: number,
  maxK: number,
  need: (lines: string[], start: number) => boolean,
  tries = 60,
): { start: number; k: number } | null {
  for (let attempt = 0; attempt < tries; attempt++) {
    const k = minK + rng.int(maxK - minK + 1);
    if (k > c.lines.length) return null;
    const start = rng.int(c.lines.length - k + 1);
    const lines = c.lines.slice(start, start + k);
    if (isBlank(lines[0]) || isBlank(lines[k - 1])) continue;
    if (lines.join("").replace(/\s/g, "").length < 16) continue;
    if (!need(lines, start)) continue;
    if (!uniqueTrimmed(c, start, k)) continue;
    return { start, k };
  }
  return null;
}

// ------------------------------------------------------------------ building cases

interface Build {
  cls: string;
  group: Group;
  c: FileCtx;
  serial: number;
  tool: OCase["tool"];
  args: Record<string, unknown>;
  readFirst?: boolean;
  /** The region replaced (0-based lines) and its replacement; newLines null: must be refused. */
  start: number;
  end: number;
  newLines: string[] | null;
  /** The file's lines before (default: the corpus file's). */
  lines?: string[];
  finalNewline?: boolean;
  crlf?: boolean;
  bom?: boolean;
  /** Replaces the intended text (a whole-file write). */
  intendedOverride?: string;
}

function mk(b: Build): OCase {
  const lines = b.lines ?? b.c.lines;
  const finalNewline = b.finalNewline ?? b.c.L.finalNewline;
  const before = fromLines({ lines, finalNewline });
  let intendedText: string | null = null;
  if (b.intendedOverride !== undefined) intendedText = b.intendedOverride;
  else if (b.newLines) {
    const out = [...lines.slice(0, b.start), ...b.newLines, ...lines.slice(b.end)];
    // Everything deleted from a file without a final newline: the line before loses its newline too.
    intendedText = fromLines({ lines: out, finalNewline: out.length === 0 ? false : finalNewline });
    if (out.length === 0) intendedText = "";
  }
  return {
    id: `${b.cls}#${b.serial}`,
    cls: b.cls,
    group: b.group,
    source: b.c.f.name,
    lang: b.c.f.lang,
    base: b.c.f.base,
    bytes: encode(before, { crlf: b.crlf, bom: b.bom }),
    before,
    tool: b.tool,
    args: b.args,
    readFirst: b.readFirst ?? b.tool !== "edit",
    intended: intendedText === null ? null : encode(intendedText, { crlf: b.crlf, bom: b.bom }),
    intendedText,
    region: { start: b.start, end: b.end, newCount: b.newLines ? b.newLines.length : b.end - b.start },
  };
}

const join = (ls: string[]): string => ls.join("\n");

// ------------------------------------------------------------------ slip: old_string re-typed from memory

type Slip = (copy: Item[], c: FileCtx, rng: Rng) => { copy: Item[]; avoid: number[] } | null;

const SLIPS: Record<string, { need: (lines: string[], c: FileCtx) => boolean; slip: Slip }> = {
  "comment-reworded": {
    need: (ls, c) => ls.some((l) => hasWordyComment(l, c.f.lang)),
    slip: (copy, c, rng) => {
      const cand = copy.filter((i) => hasWordyComment(i.text, c.f.lang));
      if (cand.length === 0) return null;
      const it = rng.pick(cand);
      const at = commentStart(it.text, c.f.lang);
      const marker = lineComment(c.f.lang)!;
      const words = it.text
        .slice(at + marker.length)
        .trim()
        .split(/\s+/);
      const drop = 1 + rng.int(words.length - 1);
      const reworded = [...words.slice(0, drop), ...words.slice(drop + 1)].join(" ");
      const out = copy.map((i) => (i === it ? { ...i, text: it.text.slice(0, at) + marker + " " + reworded } : i));
      return { copy: out, avoid: [it.id] };
    },
  },
  "comment-dropped": {
    need: (ls, c) => ls.some((l) => hasTrailingComment(l, c.f.lang)),
    slip: (copy, c, rng) => {
      const cand = copy.filter((i) => hasTrailingComment(i.text, c.f.lang));
      if (cand.length === 0) return null;
      const it = rng.pick(cand);
      const out = copy.map((i) =>
        i === it ? { ...i, text: it.text.slice(0, commentStart(it.text, c.f.lang)).trimEnd() } : i,
      );
      return { copy: out, avoid: [it.id] };
    },
  },
  "import-reordered": {
    need: (ls) => ls.some((l, i) => isImport(l) && isImport(ls[i + 1] ?? "") && l !== ls[i + 1]),
    slip: (copy, _c, rng) => {
      const at = copy
        .map((_, i) => i)
        .filter(
          (i) =>
            i + 1 < copy.length &&
            isImport(copy[i].text) &&
            isImport(copy[i + 1].text) &&
            copy[i].text !== copy[i + 1].text,
        );
      if (at.length === 0) return null;
      const i = rng.pick(at);
      const out = [...copy];
      [out[i], out[i + 1]] = [out[i + 1], out[i]];
      return { copy: out, avoid: [copy[i].id, copy[i + 1].id] };
    },
  },
  "line-merged": {
    need: (ls) => ls.some((l, i) => mergeable(l, ls[i + 1])),
    slip: (copy, _c, rng) => {
      const at = copy.map((_, i) => i).filter((i) => mergeable(copy[i].text, copy[i + 1]?.text));
      if (at.length === 0) return null;
      const i = rng.pick(at);
      const a = copy[i].text.trimEnd();
      const b = copy[i + 1].text.trim();
      const merged = a + (/[([{]$/.test(a) ? "" : " ") + b;
      const out = [...copy.slice(0, i), { id: copy[i].id, text: merged }, ...copy.slice(i + 2)];
      return { copy: out, avoid: [copy[i].id, copy[i + 1].id] };
    },
  },
  "line-split": {
    need: (ls) => ls.some((l) => splitPoint(l) !== -1),
    slip: (copy, _c, rng) => {
      const at = copy.map((_, i) => i).filter((i) => splitPoint(copy[i].text) !== -1);
      if (at.length === 0) return null;
      const i = rng.pick(at);
      const t = copy[i].text;
      const p = splitPoint(t);
      const out = [
        ...copy.slice(0, i),
        { id: copy[i].id, text: t.slice(0, p + 1) },
        { id: 2000, text: indentOf(t) + "        " + t.slice(p + 1).trimStart() },
        ...copy.slice(i + 1),
      ];
      return { copy: out, avoid: [copy[i].id] };
    },
  },
  "blank-missing": {
    need: (ls) =>
      ls.some((l, i) => i > 0 && i < ls.length - 1 && isBlank(l) && !isBlank(ls[i - 1]) && !isBlank(ls[i + 1])),
    slip: (copy, _c, rng) => {
      const at = copy
        .map((_, i) => i)
        .filter(
          (i) =>
            i > 0 &&
            i < copy.length - 1 &&
            isBlank(copy[i].text) &&
            !isBlank(copy[i - 1].text) &&
            !isBlank(copy[i + 1].text),
        );
      if (at.length === 0) return null;
      const i = rng.pick(at);
      return { copy: [...copy.slice(0, i), ...copy.slice(i + 1)], avoid: [copy[i - 1].id, copy[i].id, copy[i + 1].id] };
    },
  },
  "blank-extra": {
    need: (ls) => ls.filter((l) => !isBlank(l)).length >= 4,
    slip: (copy, _c, rng) => {
      const at = copy
        .map((_, i) => i)
        .filter((i) => i > 0 && i < copy.length - 1 && !isBlank(copy[i].text) && !isBlank(copy[i + 1].text));
      if (at.length === 0) return null;
      const i = rng.pick(at);
      return {
        copy: [...copy.slice(0, i + 1), { id: 3000, text: "" }, ...copy.slice(i + 1)],
        avoid: [copy[i].id, copy[i + 1].id],
      };
    },
  },
  "first-line-unindented": {
    need: (ls) => indentOf(ls[0]).length > 0 && ls.length >= 2,
    slip: (copy) =>
      indentOf(copy[0].text) === ""
        ? null
        : { copy: [{ ...copy[0], text: copy[0].text.trimStart() }, ...copy.slice(1)], avoid: [] },
  },
  "tab-space-mix": {
    need: (ls, c) =>
      c.unit !== "\t" && ls.filter((l) => indentOf(l).length >= c.unit.length && !isBlank(l)).length >= 2,
    slip: (copy, c, rng) => {
      const u = c.unit.length;
      const indented = copy.filter((i) => !isBlank(i.text) && indentOf(i.text).length >= u);
      if (indented.length < 2) return null;
      // Some lines (not all) get tabs for their indentation, one tab per level.
      const chosen = new Set(indented.filter(() => rng.chance(0.5)).map((i) => i.id));
      if (chosen.size === 0) chosen.add(indented[0].id);
      if (chosen.size === indented.length) chosen.delete(indented[indented.length - 1].id);
      const out = copy.map((i) => {
        if (!chosen.has(i.id)) return i;
        const w = indentOf(i.text).length;
        return { ...i, text: "\t".repeat(Math.floor(w / u)) + " ".repeat(w % u) + i.text.slice(w) };
      });
      return { copy: out, avoid: [] };
    },
  },
};

function hasWordyComment(l: string, lang: OLang): boolean {
  const at = commentStart(l, lang);
  if (at === -1) return false;
  const body = l.slice(at + lineComment(lang)!.length).trim();
  return (
    body.split(/\s+/).length >= 3 &&
    /^[\w ,.'-]+$/.test(body) &&
    !/^(type:|noqa|pragma|eslint|@ts-|prettier|istanbul|jshint)/.test(body)
  );
}
function hasTrailingComment(l: string, lang: OLang): boolean {
  const at = commentStart(l, lang);
  return (
    at > 0 &&
    !isBlank(l.slice(0, at)) &&
    l.slice(at).trim().length > 3 &&
    !/(type:|noqa|pragma|eslint|@ts-)/.test(l.slice(at))
  );
}
const isImport = (l: string): boolean =>
  /^(import |from \S+ import |const \w+ = require\()/.test(l) && !/[({[]$/.test(l.trim());
function mergeable(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || isBlank(a) || isBlank(b)) return false;
  return (
    /[([{,]$/.test(a.trimEnd()) &&
    indentOf(b).length > indentOf(a).length &&
    !/[#/]/.test(b) &&
    !/"""|'''|`/.test(a + b) &&
    (a.trimEnd() + b.trim()).length < 160
  );
}
function splitPoint(l: string): number {
  if (l.length < 50 || /"""|'''|`|#|\/\//.test(l)) return -1;
  const open = l.indexOf("(");
  if (open === -1) return -1;
  // A ", " inside the first bracket pair, outside quotes.
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < l.length; i++) {
    const ch = l[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
    else if (ch === "," && l[i + 1] === " " && depth === 1 && i > open && i > 20) return i;
  }
  return -1;
}

/** A line whose string literal holds a run of two or more blanks: the literal's offsets. */
function spacedLiteral(l: string): { from: number; to: number } | null {
  if (/"""|'''|`/.test(l)) return null;
  // Literals from their opening quote to the matching closing one (escapes skipped).
  for (let i = 0; i < l.length; i++) {
    const q = l[i];
    if (q === "#" || (q === "/" && l[i + 1] === "/")) return null;
    if (q !== '"' && q !== "'") continue;
    let j = i + 1;
    while (j < l.length && l[j] !== q) j += l[j] === "\\" ? 2 : 1;
    if (j >= l.length) return null;
    if (/ {2,}/.test(l.slice(i + 1, j))) return { from: i, to: j + 1 };
    i = j;
  }
  return null;
}

/**
 * The copy collapses a run of blanks inside a string literal (it re-typed the
 * line), and the change renames an identifier outside the literal on that very
 * line: the string's content is not the caller's change.
 */
function stringSpacingCase(c: FileCtx, rng: Rng, serial: number): OCase | null {
  const cand = c.lines.map((_, i) => i).filter((i) => !c.inString[i] && spacedLiteral(c.lines[i]) !== null);
  for (let attempt = 0; attempt < 10 && cand.length > 0; attempt++) {
    const i = rng.pick(cand);
    const l = c.lines[i];
    const lit = spacedLiteral(l)!;
    const comment = commentStart(l, c.f.lang);
    if (comment !== -1 && comment < lit.to) continue;
    const ids = identifiers(l, c.f.lang).filter(
      (x) => (x.at < lit.from || x.at >= lit.to) && x.at >= indentOf(l).length && (comment === -1 || x.at < comment),
    );
    if (ids.length === 0) continue;
    const x = rng.pick(ids);
    const rename = (t: string, at: number) => t.slice(0, at) + x.name + "Xq" + t.slice(at + x.name.length);
    const collapsed = l.slice(0, lit.from) + l.slice(lit.from, lit.to).replace(/ {2,}/g, " ") + l.slice(lit.to);
    const shift = x.at < lit.from ? 0 : collapsed.length - l.length;
    const withContext = rng.chance(0.5) && i + 1 < c.lines.length && !isBlank(c.lines[i + 1]);
    const old = collapsed.trim() + (withContext ? "\n" + c.lines[i + 1] : "");
    const neu = rename(collapsed, x.at + shift).trim() + (withContext ? "\n" + c.lines[i + 1] : "");
    if (c.f.text.includes(collapsed.trim())) continue;
    return mk({
      cls: "string-spacing-collapsed",
      group: "slip",
      c,
      serial,
      tool: "edit",
      args: { old_string: old, new_string: neu },
      start: i,
      end: i + 1,
      newLines: [rename(l, x.at)],
    });
  }
  return null;
}

function slipCase(cls: string, c: FileCtx, rng: Rng, serial: number): OCase | null {
  const spec = SLIPS[cls];
  const r = pickRegion(c, rng, 4, 10, (ls) => spec.need(ls, c));
  if (!r) return null;
  const region = c.lines.slice(r.start, r.start + r.k);
  const slipped = spec.slip(items(region), c, rng);
  if (!slipped) return null;
  const ch = pickChange(region, c.lines, r.start, rng, c.f.lang, serial, c.unit, new Set(slipped.avoid), c.inString);
  if (!ch) return null;
  const intended = texts(applyChange(items(region), ch, c.unit));
  const oldCopy = texts(slipped.copy);
  const newCopy = texts(applyChange(slipped.copy, ch, c.unit));
  if (join(oldCopy) === join(region)) return null;
  // The slipped copy must not be another place of the file, exactly or once blanks are ignored:
  // there it would name that place, and the intent would be lost to any tool.
  if (c.f.text.includes(join(oldCopy)) || windowsOf(c.keys, oldCopy.map(trimKey)) > 0) return null;
  return mk({
    cls,
    group: "slip",
    c,
    serial,
    tool: "edit",
    args: { old_string: join(oldCopy), new_string: join(newCopy) },
    start: r.start,
    end: r.start + r.k,
    newLines: intended,
  });
}

// ------------------------------------------------------------------ format: the bytes around the edit

function exactChangeCase(
  c: FileCtx,
  rng: Rng,
  serial: number,
  minK = 1,
  maxK = 6,
  need: (ls: string[], s: number) => boolean = () => true,
): { r: { start: number; k: number }; region: string[]; intended: string[] } | null {
  const r = pickRegion(c, rng, minK, maxK, need);
  if (!r) return null;
  const region = c.lines.slice(r.start, r.start + r.k);
  const ch = pickChange(region, c.lines, r.start, rng, c.f.lang, serial, c.unit, new Set(), c.inString);
  if (!ch) return null;
  return { r, region, intended: texts(applyChange(items(region), ch, c.unit)) };
}

function formatCase(cls: string, c: FileCtx, rng: Rng, serial: number): OCase | null {
  const base = { cls, group: "format" as const, c, serial, tool: "edit" as const };
  switch (cls) {
    case "crlf-model-lf":
    case "crlf-model-crlf": {
      const x = exactChangeCase(c, rng, serial, 2, 6);
      if (!x) return null;
      const e = cls === "crlf-model-crlf" ? "\r\n" : "\n";
      return mk({
        ...base,
        args: { old_string: x.region.join(e), new_string: x.intended.join(e) },
        start: x.r.start,
        end: x.r.start + x.r.k,
        newLines: x.intended,
        crlf: true,
      });
    }
    case "bom-first-line": {
      if (isBlank(c.lines[0]) || c.lines[0].startsWith("#!")) return null;
      const first = c.lines[0];
      const ids = identifiers(first, c.f.lang).filter((x) => x.at >= indentOf(first).length);
      const insert = rng.chance(0.5) || ids.length === 0;
      if (count(c.f.text, first) !== 1) return null;
      let neu: string[];
      if (insert) {
        const payload = c.f.lang === "json" || c.f.lang === "html" ? null : payloadFor(c.f.lang, serial);
        if (!payload) return null;
        neu = [lineComment(c.f.lang) ? `${lineComment(c.f.lang)} rt note ${serial}` : payload, first];
      } else {
        const x = rng.pick(ids);
        neu = [first.slice(0, x.at) + x.name + "Xq" + first.slice(x.at + x.name.length)];
      }
      return mk({
        ...base,
        args: { old_string: first, new_string: neu.join("\n") },
        start: 0,
        end: 1,
        newLines: neu,
        bom: true,
      });
    }
    case "latin1-neighbour": {
      const marker = lineComment(c.f.lang);
      if (!marker) return null;
      const x = exactChangeCase(c, rng, serial, 2, 6, (_ls, s) => s > 0);
      if (!x) return null;
      // A comment line with a Latin-1 byte (caf\xe9) right before the region, at its indentation.
      const lines = [...c.lines];
      const note = indentOf(c.lines[x.r.start]) + `${marker} caf${LATIN1_E9} au lait`;
      lines.splice(x.r.start, 0, note);
      const start = x.r.start + 1;
      return mk({
        ...base,
        lines,
        args: { old_string: join(x.region), new_string: join(x.intended) },
        start,
        end: start + x.r.k,
        newLines: x.intended,
      });
    }
    case "eof-no-newline": {
      const n = c.lines.length;
      const last = c.lines[n - 1];
      if (isBlank(last) || count(c.f.text, last.trim()) !== 1) return null;
      const variant = rng.int(3);
      if (variant === 0) {
        const ids = identifiers(last, c.f.lang).filter((x) => x.at >= indentOf(last).length);
        if (ids.length === 0) return null;
        const x = rng.pick(ids);
        const changed = last.slice(0, x.at) + x.name + "Xq" + last.slice(x.at + x.name.length);
        return mk({
          ...base,
          args: { old_string: last, new_string: changed },
          start: n - 1,
          end: n,
          newLines: [changed],
          finalNewline: false,
        });
      }
      if (!simpleLine([...c.lines, ""], n - 1, c.f.lang, c.inString) && c.f.lang !== "html") return null;
      const added = indentOf(last) + payloadFor(c.f.lang, serial, last);
      if (c.f.lang === "json") return null;
      // variant 1: a line appended; variant 2: old_string and new_string end with a newline the file does not have.
      const nl = variant === 2 ? "\n" : "";
      return mk({
        ...base,
        args: { old_string: last + nl, new_string: `${last}\n${added}${nl}` },
        start: n - 1,
        end: n,
        newLines: [last, added],
        finalNewline: false,
      });
    }
    case "first-line": {
      const first = c.lines[0];
      if (isBlank(first) || first.startsWith("#!") || count(c.f.text, first) !== 1 || first.length < 6) return null;
      const ids = identifiers(first, c.f.lang).filter((x) => x.at >= indentOf(first).length);
      if (ids.length === 0) return null;
      const x = rng.pick(ids);
      const changed = first.slice(0, x.at) + x.name + "Xq" + first.slice(x.at + x.name.length);
      // With the line after, or alone.
      const withNext = rng.chance(0.5) && c.lines.length > 1;
      const old = withNext ? `${first}\n${c.lines[1]}` : first;
      const neu = withNext ? `${changed}\n${c.lines[1]}` : changed;
      return mk({ ...base, args: { old_string: old, new_string: neu }, start: 0, end: 1, newLines: [changed] });
    }
    case "long-line": {
      const longs = c.lines.map((l, i) => i).filter((i) => c.lines[i].length >= 1_500);
      if (longs.length === 0) return null;
      const li = rng.pick(longs);
      const line = c.lines[li];
      for (let attempt = 0; attempt < 30; attempt++) {
        const from = rng.int(line.length - 80);
        const ids = identifiers(line.slice(from, from + 60), c.f.lang);
        if (ids.length < 2) continue;
        const a = ids[0].at + from;
        const b = ids[ids.length - 1].at + from + ids[ids.length - 1].name.length;
        const frag = line.slice(a, b);
        if (frag.length < 16 || count(c.f.text, frag) !== 1) continue;
        const x = rng.pick(ids);
        const p = x.at + from - a;
        const newFrag = frag.slice(0, p) + x.name + "Xq" + frag.slice(p + x.name.length);
        const changed = line.slice(0, a) + newFrag + line.slice(b);
        return mk({
          ...base,
          args: { old_string: frag, new_string: newFrag },
          start: li,
          end: li + 1,
          newLines: [changed],
        });
      }
      return null;
    }
  }
  return null;
}

// ------------------------------------------------------------------ ambiguity: one line at two indentations

function ambiguityCase(cls: string, c: FileCtx, rng: Rng, serial: number): OCase | null {
  const byText = new Map<string, number[]>();
  c.lines.forEach((l, i) => {
    const t = l.trim();
    if (t.length < 6 || c.inString[i] || identifiers(t, c.f.lang).length === 0) return;
    byText.set(t, [...(byText.get(t) ?? []), i]);
  });
  const multi = [...byText.entries()].filter(([, at]) => new Set(at.map((i) => indentOf(c.lines[i]))).size >= 2);
  if (multi.length === 0) return null;
  const [t, at] = rng.pick(multi);
  const indents = [...new Set(at.map((i) => indentOf(c.lines[i])))].sort((a, b) => a.length - b.length);
  const ids = identifiers(t, c.f.lang);
  const x = rng.pick(ids);
  const changedT = t.slice(0, x.at) + x.name + "Xq" + t.slice(x.at + x.name.length);
  const base = { cls, group: "ambiguity" as const, c, serial, tool: "edit" as const };
  if (cls === "twice-quoted-at-one") {
    // Quoted with one occurrence's exact indentation, that indentation held by one line only: that line is meant.
    const ind = rng.pick(indents);
    const holders = at.filter((i) => indentOf(c.lines[i]) === ind);
    if (holders.length !== 1) return null;
    const li = holders[0];
    // The whole line and its newline: never a fragment of a deeper line.
    const withNl = li < c.lines.length - 1;
    return mk({
      ...base,
      args: { old_string: ind + t + (withNl ? "\n" : ""), new_string: ind + changedT + (withNl ? "\n" : "") },
      start: li,
      end: li + 1,
      newLines: [ind + changedT],
    });
  }
  if (cls === "twice-quoted-bare")
    return mk({ ...base, args: { old_string: t, new_string: changedT }, start: 0, end: 0, newLines: null });
  // At an indentation none of them has.
  const widths = new Set(indents.map((s) => s.length));
  let w = 1;
  while (widths.has(w) || w % 2 === 0) w++;
  const ind = " ".repeat(w);
  return mk({
    ...base,
    args: { old_string: `${ind}${t}\n`, new_string: `${ind}${changedT}\n` },
    start: 0,
    end: 0,
    newLines: null,
  });
}

// ------------------------------------------------------------------ reindent: new_string changes indentation on purpose

/** An `if` whose block (deeper lines up to the next line at its level or less) has 1-6 lines, no else/elif after. */
function findIfBlock(c: FileCtx, rng: Rng): { at: number; end: number } | null {
  const py = c.f.lang === "py";
  for (let attempt = 0; attempt < 200; attempt++) {
    const i = rng.int(c.lines.length);
    const l = c.lines[i];
    if (c.inString[i]) continue;
    const t = l.trim();
    if (py ? !/^if [^#]*:$/.test(t) || /\bnot\b.*\band\b|lambda/.test(t) : !/^if \(.*\) \{$/.test(t)) continue;
    const ind = indentOf(l);
    let j = i + 1;
    while (j < c.lines.length && (isBlank(c.lines[j]) || indentOf(c.lines[j]).length > ind.length)) j++;
    if (!py) {
      if (c.lines[j] !== ind + "}") continue;
      const after = c.lines[j + 1]?.trim() ?? "";
      if (/^else\b/.test(after)) continue;
      j++;
    } else {
      const after = c.lines[j]?.trim() ?? "";
      if (/^(else|elif)\b/.test(after)) continue;
    }
    while (j > i + 1 && isBlank(c.lines[j - 1])) j--;
    const body = c.lines.slice(i + 1, py ? j : j - 1);
    if (body.length < 1 || body.length > 6 || body.some((b) => c.inString[c.lines.indexOf(b)])) continue;
    if (body.some((b) => !isBlank(b) && /^(return|raise|break|continue|yield|let |const |var )/.test(b.trim())))
      continue;
    if (!body.every((b) => isBlank(b) || indentOf(b).startsWith(ind + c.unit))) continue;
    if (!uniqueTrimmed(c, i, j - i)) continue;
    return { at: i, end: j };
  }
  return null;
}

function reindentCase(cls: string, c: FileCtx, rng: Rng, serial: number): OCase | null {
  const py = c.f.lang === "py";
  const u = c.unit;
  const base = { cls, group: "reindent" as const, c, serial };
  if (cls.startsWith("dedent-out-of-if")) {
    const b = findIfBlock(c, rng);
    if (!b) return null;
    const ind = indentOf(c.lines[b.at]);
    const region = c.lines.slice(b.at, b.end);
    const body = c.lines.slice(b.at + 1, py ? b.end : b.end - 1);
    const dedented = body.map((l) => (isBlank(l) ? l : l.slice(u.length)));
    if (cls === "dedent-out-of-if:edit")
      return mk({
        ...base,
        tool: "edit",
        args: { old_string: join(region), new_string: join(dedented) },
        start: b.at,
        end: b.end,
        newLines: dedented,
      });
    if (cls === "dedent-out-of-if:edit-copied-at-0") {
      // Both copied from column 0 of the `if` (its indentation stripped from every line).
      const strip = (ls: string[]) => ls.map((l) => (l.startsWith(ind) ? l.slice(ind.length) : l.trimStart()));
      return mk({
        ...base,
        tool: "edit",
        args: { old_string: join(strip(region)), new_string: join(strip(dedented)) },
        start: b.at,
        end: b.end,
        newLines: dedented,
      });
    }
    return mk({
      ...base,
      tool: "edit_lines",
      args: { command: "replace", start_line: b.at + 1, end_line: b.end, new_content: join(dedented) },
      start: b.at,
      end: b.end,
      newLines: dedented,
    });
  }
  if (cls.startsWith("add-at-enclosing-level")) {
    // The last line of a block, followed by a line at the enclosing level (not a continuation clause).
    for (let attempt = 0; attempt < 200; attempt++) {
      const i = rng.int(c.lines.length - 1);
      const l = c.lines[i];
      if (!simpleLineAnyNext(c, i)) continue;
      const nextI = c.lines.findIndex((x, k) => k > i && !isBlank(x));
      if (nextI === -1) continue;
      const next = c.lines[nextI];
      if (indentOf(next).length >= indentOf(l).length || c.inString[nextI]) continue;
      if (
        py
          ? /^(else|elif|except|finally|case)\b|^[)\]}]/.test(next.trim())
          : !/^\}/.test(next.trim()) && !/;$/.test(next.trim())
      )
        continue;
      if (!py && /^\}/.test(next.trim())) {
        // The level after the closing brace: the brace's own; the new line goes after the brace.
        continue;
      }
      if (count(c.f.text, l) !== 1) continue;
      const added = indentOf(next) + payloadFor(c.f.lang, serial, next);
      if (cls === "add-at-enclosing-level:edit")
        return mk({
          ...base,
          tool: "edit",
          args: { old_string: l, new_string: `${l}\n${added}` },
          start: i,
          end: i + 1,
          newLines: [l, added],
        });
      return mk({
        ...base,
        tool: "edit_lines",
        args: { command: "insert", insert_line: i + 1, new_content: added },
        start: i + 1,
        end: i + 1,
        newLines: [added],
      });
    }
    return null;
  }
  if (cls.startsWith("add-into-block")) {
    // A statement added as the first line of a block, after its opener, at the block's indentation.
    for (let attempt = 0; attempt < 200; attempt++) {
      const i = rng.int(c.lines.length - 1);
      const l = c.lines[i];
      if (c.inString[i] || isBlank(l) || count(c.f.text, l) !== 1) continue;
      const t = stripTrailingComment(l.trim(), c.f.lang);
      if (
        py
          ? !/^(if|for|while|with|def|try|else|elif|except|finally)\b.*:$/.test(t)
          : !/^(if|for|while|function|else|try)\b.*\{$|=> \{$|\) \{$/.test(t)
      )
        continue;
      const nextI = c.lines.findIndex((x, k) => k > i && !isBlank(x));
      if (nextI === -1 || indentOf(c.lines[nextI]).length <= indentOf(l).length || c.inString[nextI]) continue;
      if (py && /^("""|''')/.test(c.lines[nextI].trim())) continue; // before a docstring: it would stop being one
      const added = indentOf(c.lines[nextI]) + payloadFor(c.f.lang, serial);
      if (cls === "add-into-block:edit")
        return mk({
          ...base,
          tool: "edit",
          args: { old_string: l, new_string: `${l}\n${added}` },
          start: i,
          end: i + 1,
          newLines: [l, added],
        });
      return mk({
        ...base,
        tool: "edit_lines",
        args: { command: "insert", insert_line: i + 1, new_content: added },
        start: i + 1,
        end: i + 1,
        newLines: [added],
      });
    }
    return null;
  }
  if (cls.startsWith("wrap-in-new-block")) {
    // One to three simple statements at one level wrapped in a new `if`.
    for (let attempt = 0; attempt < 200; attempt++) {
      const k = 1 + rng.int(3);
      const i = rng.int(c.lines.length - k);
      const ls = c.lines.slice(i, i + k);
      const ind = indentOf(ls[0]);
      if (ind.length === 0 || ls.some((l, j) => isBlank(l) || indentOf(l) !== ind || !simpleLineAnyNext(c, i + j)))
        continue;
      const prev =
        c.lines
          .slice(0, i)
          .reverse()
          .find((x) => !isBlank(x)) ?? "";
      if (CONTINUES.test(prev.trim()) && !/[:{]$/.test(prev.trim())) continue;
      if (!uniqueTrimmed(c, i, k)) continue;
      const head = py ? `${ind}if rt_flag_${serial}:` : `${ind}if (rtFlag${serial}) {`;
      const wrapped = [head, ...ls.map((l) => u + l), ...(py ? [] : [`${ind}}`])];
      if (cls === "wrap-in-new-block:edit")
        return mk({
          ...base,
          tool: "edit",
          args: { old_string: join(ls), new_string: join(wrapped) },
          start: i,
          end: i + k,
          newLines: wrapped,
        });
      return mk({
        ...base,
        tool: "edit_lines",
        args: { command: "replace", start_line: i + 1, end_line: i + k, new_content: join(wrapped) },
        start: i,
        end: i + k,
        newLines: wrapped,
      });
    }
    return null;
  }
  return null;
}

function simpleLineAnyNext(c: FileCtx, i: number): boolean {
  const l = c.lines[i];
  if (l === undefined || isBlank(l) || c.inString[i] || c.inString[i + 1]) return false;
  // The body of a braceless `if (x)` / `else` / loop: a line added before or around it would leave it out of the statement.
  const prev =
    c.lines
      .slice(0, i)
      .reverse()
      .find((x) => !isBlank(x)) ?? "";
  if (c.f.lang !== "py" && /^\s*(?:\}\s*)?(?:if|for|while|else|do)\b/.test(prev) && !/[{;]\s*$/.test(prev))
    return false;
  const t = stripTrailingComment(l.trim(), c.f.lang);
  if (c.f.lang === "py")
    return t.length > 0 && !CONTINUES.test(t) && !/^(@|else|elif|except|finally|case|#|"|')/.test(t) && balanced(t);
  return /;$/.test(t) && balanced(t) && !/^(\/\/|\*|\/\*|case |default:|import |export )/.test(t);
}

// ------------------------------------------------------------------ feature regions

const FEATURES: Record<string, { langs: OLang[]; line: RegExp }> = {
  decorator: { langs: ["py"], line: /^\s*@[\w.]+/ },
  "async-def": { langs: ["py"], line: /^\s*async def / },
  match: { langs: ["py"], line: /^\s*match \S.*:\s*$/ },
  "fstring-nested": { langs: ["py"], line: /f"[^"]*\{[^}]*'[^}]*\}|f'[^']*\{[^}]*"[^}]*\}/ },
  "triple-string": { langs: ["py"], line: /^\s*\S.*("""|''')\s*$/ },
  "template-literal": { langs: ["js", "mjs", "ts"], line: /`[^`]*$/ },
  "regex-literal": { langs: ["js", "mjs", "ts"], line: /[=(,:]\s*\/(?![/*])(?:[^/\\\n]|\\.)+\/[gimsuy]*[;,)\s.]/ },
};

function featureCase(cls: string, c: FileCtx, rng: Rng, serial: number): OCase | null {
  const [feature, variant] = cls.split(":");
  const spec = FEATURES[feature];
  if (!spec.langs.includes(c.f.lang)) return null;
  const hits = c.lines
    .map((l, i) => i)
    .filter((i) => spec.line.test(c.lines[i]) && (feature === "triple-string" || !c.inString[i]));
  if (hits.length === 0) return null;
  for (let attempt = 0; attempt < 20; attempt++) {
    const h = rng.pick(hits);
    const k = 3 + rng.int(5);
    const start = Math.max(0, h - rng.int(3));
    if (start + k > c.lines.length) continue;
    const region = c.lines.slice(start, start + k);
    if (isBlank(region[0]) || isBlank(region[k - 1]) || !uniqueTrimmed(c, start, k)) continue;
    let intended: string[];
    let copyOld: string[];
    let copyNew: string[];
    const firstInd = indentOf(region[0]);
    const strip = (ls: string[]) => ls.map((l) => (l.startsWith(firstInd) ? l.slice(firstInd.length) : l));
    if (variant === "inside-string") {
      // A word changed on a line inside the string or template (its indentation is content there).
      const inside = region
        .map((_, j) => j)
        .filter(
          (j) =>
            j > 0 &&
            (c.inString[start + j] || insideTemplate(c.lines, start + j)) &&
            identifiers(region[j], "html").length > 0,
        );
      if (inside.length === 0) continue;
      const j = rng.pick(inside);
      const x = rng.pick(identifiers(region[j], "html"));
      intended = [...region];
      intended[j] = region[j].slice(0, x.at) + x.name + "Xq" + region[j].slice(x.at + x.name.length);
      copyOld = strip(region);
      copyNew = strip(intended);
    } else {
      const ch =
        feature === "decorator" && rng.chance(0.5)
          ? decoratorChange(region, serial)
          : pickChange(region, c.lines, start, rng, c.f.lang, serial, c.unit, new Set(), c.inString);
      if (!ch) continue;
      intended = texts(applyChange(items(region), ch, c.unit));
      if (variant === "from-first-column") {
        const copy = items(strip(region));
        copyOld = texts(copy);
        copyNew = texts(applyChange(copy, ch, c.unit));
        if (firstInd === "") continue;
      } else {
        copyOld = region;
        copyNew = intended;
      }
    }
    return mk({
      cls,
      group: "feature",
      c,
      serial,
      tool: "edit",
      args: { old_string: join(copyOld), new_string: join(copyNew) },
      start,
      end: start + k,
      newLines: intended,
    });
  }
  return null;
}

function decoratorChange(region: string[], serial: number): Change | null {
  const j = region.findIndex((l) => /^\s*@/.test(l));
  if (j === -1) return null;
  // A new decorator above the first one: inserted after the line before it, at the decorator's indentation.
  if (j === 0) return null;
  return { kind: "insert", id: j - 1, ref: j, deeper: false, payload: `@rt_marker_${serial}`, newId: 1000 };
}

/** JS: whether line i lies inside a template literal opened on an earlier line (backticks counted naively, escapes skipped). */
function insideTemplate(lines: string[], i: number): boolean {
  let open = false;
  for (let k = 0; k < i; k++) {
    for (let p = 0; p < lines[k].length; p++) {
      const ch = lines[k][p];
      if (ch === "\\") p++;
      else if (ch === "`") open = !open;
    }
  }
  return open;
}

// ------------------------------------------------------------------ newcomer's everyday edits

function newcomerCase(cls: string, c: FileCtx, rng: Rng, serial: number): OCase | null {
  const py = c.f.lang === "py";
  const js = ["js", "mjs", "ts"].includes(c.f.lang);
  if (!py && !js) return null;
  const u = c.unit;
  const base = { cls, group: "newcomer" as const, c, serial };
  const lines = c.lines;
  const uniqueLine = (i: number) => count(c.f.text, lines[i].trim()) === 1;
  switch (cls) {
    case "rename-on-one-line": {
      const cand = lines
        .map((_, i) => i)
        .filter(
          (i) =>
            !c.inString[i] &&
            (py ? /^\s*\w+ = \S/.test(lines[i]) : /^\s*(const|let|var) \w+ = \S/.test(lines[i])) &&
            uniqueLine(i),
        );
      if (cand.length === 0) return null;
      const i = rng.pick(cand);
      const l = lines[i];
      const name = py ? /^\s*(\w+)/.exec(l)![1] : /^\s*(?:const|let|var) (\w+)/.exec(l)![1];
      const changed = l.replace(new RegExp(`\\b${name}\\b`), `${name}_renamed`);
      return mk({
        ...base,
        tool: "edit",
        args: { old_string: l.trim(), new_string: changed.trim() },
        start: i,
        end: i + 1,
        newLines: [changed],
      });
    }
    case "add-import": {
      const cand = lines
        .map((_, i) => i)
        .filter(
          (i) =>
            indentOf(lines[i]) === "" &&
            !c.inString[i] &&
            (py
              ? /^(import \w[\w.]*$|from [\w.]+ import [\w, ]+$)/.test(lines[i])
              : /^import .* from ["'][^"']+["'];?$|^const \w+ = require\(["'][^"']+["']\);?$/.test(lines[i])) &&
            uniqueLine(i),
        );
      if (cand.length === 0) return null;
      const i = rng.pick(cand);
      const l = lines[i];
      const added = py
        ? "import zlib"
        : l.startsWith("import")
          ? `import { rtExtra${serial} } from "./rt-extra.js";`
          : `const rtExtra${serial} = require("./rt-extra");`;
      return mk({
        ...base,
        tool: "edit",
        args: { old_string: l, new_string: `${l}\n${added}` },
        start: i,
        end: i + 1,
        newLines: [l, added],
      });
    }
    case "add-parameter": {
      const re = py
        ? /^(\s*(?:async )?def \w+\()([^()*]*)(\)(?: -> [^:]+)?:)\s*$/
        : /^(\s*(?:export )?(?:async )?function\*? ?\w+\()([^()*.]*)(\)(?::[^{]+)? \{)\s*$/;
      const cand = lines.map((_, i) => i).filter((i) => re.test(lines[i]) && !c.inString[i] && uniqueLine(i));
      if (cand.length === 0) return null;
      const i = rng.pick(cand);
      const m = re.exec(lines[i])!;
      const params = m[2].trim();
      if (params.endsWith(",")) return null;
      const extra = py ? "rt_extra=None" : c.f.lang === "ts" ? "rtExtra?: number" : "rtExtra";
      const changed = `${m[1]}${params ? `${params}, ` : ""}${extra}${m[3]}`;
      return mk({
        ...base,
        tool: "edit",
        args: { old_string: lines[i].trim(), new_string: changed.trim() },
        start: i,
        end: i + 1,
        newLines: [changed],
      });
    }
    case "wrap-try": {
      for (let attempt = 0; attempt < 200; attempt++) {
        const i = rng.int(lines.length);
        if (!simpleLineAnyNext(c, i) || indentOf(lines[i]).length === 0 || !uniqueLine(i)) continue;
        const prev =
          lines
            .slice(0, i)
            .reverse()
            .find((x) => !isBlank(x)) ?? "";
        if (CONTINUES.test(prev.trim()) && !/[:{]$/.test(prev.trim())) continue;
        if (!py && /^(let|const|var) /.test(lines[i].trim())) continue; // a declaration would leave its scope
        const ind = indentOf(lines[i]);
        const t = lines[i].trim();
        const wrapped = py
          ? [`${ind}try:`, `${ind}${u}${t}`, `${ind}except Exception:`, `${ind}${u}pass`]
          : [`${ind}try {`, `${ind}${u}${t}`, `${ind}} catch (err) {`, `${ind}${u}console.error(err);`, `${ind}}`];
        return mk({
          ...base,
          tool: "edit",
          args: { old_string: lines[i], new_string: join(wrapped) },
          start: i,
          end: i + 1,
          newLines: wrapped,
        });
      }
      return null;
    }
    case "delete-function": {
      const re = py ? /^(\s*)(?:async )?def \w+\(/ : /^(\s*)(?:export )?(?:async )?function\*? ?\w+\(/;
      const cand = lines
        .map((_, i) => i)
        .filter((i) => re.test(lines[i]) && !c.inString[i] && !/^\s*@/.test(lines[i - 1] ?? ""));
      for (let attempt = 0; attempt < 10 && cand.length > 0; attempt++) {
        const i = rng.pick(cand);
        const ind = indentOf(lines[i]);
        let j = i + 1;
        if (py) {
          while (j < lines.length && (isBlank(lines[j]) || indentOf(lines[j]).length > ind.length)) j++;
          while (j > i + 1 && isBlank(lines[j - 1])) j--;
        } else {
          while (j < lines.length && lines[j] !== `${ind}}`) j++;
          if (j >= lines.length) continue;
          j++;
        }
        if (j - i > 40 || !uniqueTrimmed(c, i, j - i)) continue;
        // The function's lines and their newlines; the blank lines around it stay as they were.
        const withNl = j < lines.length;
        return mk({
          ...base,
          tool: "edit",
          args: { old_string: join(lines.slice(i, j)) + (withNl ? "\n" : ""), new_string: "" },
          start: i,
          end: j,
          newLines: [],
        });
      }
      return null;
    }
    case "add-method": {
      // After the last line of a method, a new method at the method's indentation.
      const re = py ? /^(\s+)def \w+\(self/ : /^(\s+)(?:async )?\w+\([^)]*\) \{$/;
      const cand = lines.map((_, i) => i).filter((i) => re.test(lines[i]) && !c.inString[i]);
      for (let attempt = 0; attempt < 10 && cand.length > 0; attempt++) {
        const i = rng.pick(cand);
        const ind = indentOf(lines[i]);
        let j = i + 1;
        if (py) {
          while (j < lines.length && (isBlank(lines[j]) || indentOf(lines[j]).length > ind.length)) j++;
          while (j > i + 1 && isBlank(lines[j - 1])) j--;
        } else {
          while (j < lines.length && lines[j] !== `${ind}}`) j++;
          if (j >= lines.length) continue;
          j++;
        }
        const last = j - 1;
        if (c.inString[last] || (py && !simpleLineAnyNext(c, last) && !/^\s*(return|raise|pass)\b/.test(lines[last])))
          continue;
        const ctx = lines.slice(Math.max(i, last - 1), last + 1);
        if (!uniqueTrimmed(c, Math.max(i, last - 1), ctx.length)) continue;
        const method = py
          ? ["", `${ind}def rt_extra_${serial}(self):`, `${ind}${u}return None`]
          : ["", `${ind}rtExtra${serial}() {`, `${ind}${u}return null;`, `${ind}}`];
        return mk({
          ...base,
          tool: "edit",
          args: { old_string: join(ctx), new_string: join([...ctx, ...method]) },
          start: Math.max(i, last - 1),
          end: last + 1,
          newLines: [...ctx, ...method],
        });
      }
      return null;
    }
    case "change-string-literal": {
      const re =
        /"(?:[^"\\\n]|\\.)*(?:\\n|\\"|\\t|')(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*(?:\\n|\\'|\\t|")(?:[^'\\\n]|\\.)*'/g;
      const cand: Array<{ i: number; lit: string; at: number }> = [];
      lines.forEach((l, i) => {
        if (c.inString[i]) return;
        const comment = commentStart(l, c.f.lang);
        for (const m of l.matchAll(re))
          if (m[0].length >= 6 && (comment === -1 || m.index! < comment) && count(c.f.text, m[0]) === 1)
            cand.push({ i, lit: m[0], at: m.index! });
      });
      if (cand.length === 0) return null;
      const x = rng.pick(cand);
      const q = x.lit[0];
      // The literal gets a word and an escaped line break before its closing quote.
      const lit2 = x.lit.slice(0, -1) + ` rt\\n${rng.chance(0.5) ? `\\${q}` : ""}` + q;
      const l = lines[x.i];
      const changed = l.slice(0, x.at) + lit2 + l.slice(x.at + x.lit.length);
      return mk({
        ...base,
        tool: "edit",
        args: { old_string: x.lit, new_string: lit2 },
        start: x.i,
        end: x.i + 1,
        newLines: [changed],
      });
    }
    case "insert-before-line": {
      // A new statement before a line, both quoted without indentation (the line's own text is the anchor).
      for (let attempt = 0; attempt < 100; attempt++) {
        const i = rng.int(lines.length);
        if (!simpleLineAnyNext(c, i) || indentOf(lines[i]).length === 0 || !uniqueLine(i)) continue;
        const prev =
          lines
            .slice(0, i)
            .reverse()
            .find((x) => !isBlank(x)) ?? "";
        if (CONTINUES.test(prev.trim()) && !/[:{]$/.test(prev.trim())) continue;
        const t = lines[i].trim();
        const added = indentOf(lines[i]) + payloadFor(c.f.lang, serial);
        return mk({
          ...base,
          tool: "edit",
          args: { old_string: t, new_string: `${added.trim()}\n${t}` },
          start: i,
          end: i + 1,
          newLines: [added, lines[i]],
        });
      }
      return null;
    }
    case "replace-all-rename": {
      // Every call of a function renamed: old_string `name(`, replace_all.
      const calls = new Map<string, number>();
      for (const m of c.f.text.matchAll(/\b([A-Za-z_]\w{3,})\(/g)) calls.set(m[1], (calls.get(m[1]) ?? 0) + 1);
      const names = [...calls]
        .filter(
          ([n, k]) =>
            k >= 2 && k <= 30 && !/^(print|len|str|int|isinstance|super|require|function|if|for|while|return)$/.test(n),
        )
        .map(([n]) => n);
      if (names.length === 0) return null;
      const n = rng.pick(names);
      const old = `${n}(`;
      const neu = `${n}_v2(`;
      // Substring semantics, left to right: what sed or any editor's replace-all does.
      const intendedOverride = c.f.text.split(old).join(neu);
      return mk({
        ...base,
        tool: "edit",
        args: { old_string: old, new_string: neu, replace_all: true },
        start: 0,
        end: 0,
        newLines: [],
        intendedOverride,
      });
    }
    case "placeholder-variants": {
      const r = pickRegion(c, rng, 5, 12, (ls) => ls.filter((x) => !isBlank(x)).length >= 5);
      if (!r) return null;
      const region = lines.slice(r.start, r.start + r.k);
      const keep = 1 + rng.int(Math.max(1, region.length - 4));
      const ind = indentOf(region.slice(keep).find((l) => !isBlank(l)) ?? "");
      const mark = py ? "#" : "//";
      const forms = [
        `${mark} ... rest of the function unchanged ...`,
        `${mark} (rest unchanged)`,
        `${mark} … remaining code …`,
        `${mark} [...]`,
        `${mark} rest of code`,
        `${mark} existing code here`,
        `${mark} ... other cases ...`,
        `${mark} snip`,
        `${mark} etc.`,
        `${mark} the rest stays the same`,
        `${mark} ...`,
        `${mark} …`,
        py ? "..." : "/* ... */",
        `${mark} (omitted for brevity)`,
        `${mark} keep existing implementation`,
        `${mark} remaining lines as before`,
      ];
      const marker = ind + rng.pick(forms);
      const changed = applyChange(
        items(region.slice(0, keep)),
        { kind: "insert", id: 0, ref: 0, deeper: false, payload: payloadFor(c.f.lang, serial), newId: 1000 },
        u,
      );
      const neu = [...texts(changed), marker];
      return mk({
        ...base,
        tool: "edit",
        args: { old_string: join(region), new_string: join(neu) },
        start: r.start,
        end: r.start + r.k,
        newLines: null,
      });
    }
    case "multi-edit-two": {
      // Two edits of one call: a rename on one line, then a line added after another.
      const a = newcomerCase("rename-on-one-line", c, rng, serial);
      const b = newcomerCase("add-import", c, rng, serial);
      if (!a || !b || a.region.start === b.region.start) return null;
      const first = a.region.start < b.region.start ? a : b;
      const second = first === a ? b : a;
      const lines2 = [...lines];
      const apply = (x: OCase) =>
        toLines(x.intendedText!).lines.slice(x.region.start, x.region.start + x.region.newCount);
      lines2.splice(second.region.start, second.region.end - second.region.start, ...apply(second));
      lines2.splice(first.region.start, first.region.end - first.region.start, ...apply(first));
      const intendedOverride = fromLines({ lines: lines2, finalNewline: c.L.finalNewline });
      return mk({
        ...base,
        tool: "multi_edit",
        args: { edits: [a.args, b.args] },
        start: first.region.start,
        end: second.region.end,
        newLines: [],
        intendedOverride,
      });
    }
    case "write-after-read":
    case "write-unread": {
      const x = exactChangeCase(c, rng, serial, 1, 4);
      if (!x) return null;
      const out = [...lines];
      out.splice(x.r.start, x.r.k, ...x.intended);
      const content = fromLines({ lines: out, finalNewline: c.L.finalNewline });
      const unread = cls === "write-unread";
      return mk({
        ...base,
        tool: "write",
        readFirst: !unread,
        args: { content },
        start: x.r.start,
        end: x.r.start + x.r.k,
        newLines: unread ? null : x.intended,
      });
    }
  }
  return null;
}

// ------------------------------------------------------------------ other languages

function languageCase(cls: string, c: FileCtx, rng: Rng, serial: number): OCase | null {
  const variant = cls.split(":")[1];
  const base = { cls, group: "languages" as const, c, serial };
  if (variant === "exact") {
    const x = exactChangeCase(c, rng, serial, 1, 6);
    if (!x) return null;
    return mk({
      ...base,
      tool: "edit",
      args: { old_string: join(x.region), new_string: join(x.intended) },
      start: x.r.start,
      end: x.r.start + x.r.k,
      newLines: x.intended,
    });
  }
  if (variant === "dedented-copy") {
    const x = exactChangeCase(c, rng, serial, 2, 7, (ls) => {
      const nb = ls.filter((l) => !isBlank(l));
      return nb.length >= 2 && Math.min(...nb.map((l) => indentOf(l).length)) > 0;
    });
    if (!x) return null;
    const nb = x.region.filter((l) => !isBlank(l));
    const common = Math.min(...nb.map((l) => indentOf(l).length));
    if (
      x.region.some(
        (l) =>
          !isBlank(l) &&
          indentOf(l).slice(0, common).includes("\t") !== indentOf(nb[0]).slice(0, common).includes("\t"),
      )
    )
      return null;
    const strip = (ls: string[]) => ls.map((l) => (isBlank(l) ? l : l.slice(common)));
    return mk({
      ...base,
      tool: "edit",
      args: { old_string: join(strip(x.region)), new_string: join(strip(x.intended)) },
      start: x.r.start,
      end: x.r.start + x.r.k,
      newLines: x.intended,
    });
  }
  if (variant === "comment-reworded" || variant === "blank-missing") {
    if (variant === "comment-reworded" && !lineComment(c.f.lang)) return null;
    const r = slipCase(variant, c, rng, serial);
    return r ? { ...r, cls, group: "languages", id: `${cls}#${serial}` } : null;
  }
  return null;
}

// ------------------------------------------------------------------ the classes

export interface ClassSpec {
  name: string;
  group: Group;
  langs: OLang[] | "code" | "all";
  make: (c: FileCtx, rng: Rng, serial: number) => OCase | null;
  /** Files to draw from instead of the main corpus (the long-line class). */
  corpus?: "long";
  note: string;
}

const CODE: OLang[] = ["py", "js", "mjs", "ts", "dts"];
const PYJS: OLang[] = ["py", "js", "mjs", "ts"];
const OTHER: OLang[] = ["json", "yaml", "toml", "html", "c", "java", "go", "rs"];

export const CLASSES: ClassSpec[] = [
  ...Object.keys(SLIPS).map(
    (name): ClassSpec => ({
      name,
      group: "slip",
      langs: name === "tab-space-mix" || name.startsWith("blank") || name.startsWith("line") ? PYJS : CODE,
      make: (c, r, s) => slipCase(name, c, r, s),
      note: slipNote(name),
    }),
  ),
  {
    name: "string-spacing-collapsed",
    group: "slip",
    langs: PYJS,
    make: (c, r, s) => stringSpacingCase(c, r, s),
    note: "a run of blanks inside a string literal collapsed in the copy of a line whose identifier (outside the literal) the model renames",
  },
  ...["crlf-model-lf", "crlf-model-crlf", "bom-first-line", "latin1-neighbour", "eof-no-newline", "first-line"].map(
    (name): ClassSpec => ({
      name,
      group: "format",
      langs: "all",
      make: (c, r, s) => formatCase(name, c, r, s),
      note: formatNote(name),
    }),
  ),
  {
    name: "long-line",
    group: "format",
    langs: ["js", "json"],
    corpus: "long",
    make: (c, r, s) => formatCase("long-line", c, r, s),
    note: "a fragment renamed inside a line of 1,500+ characters (bundles, generated data)",
  },
  ...["twice-quoted-at-one", "twice-quoted-bare", "twice-quoted-at-neither"].map(
    (name): ClassSpec => ({
      name,
      group: "ambiguity",
      langs: "all",
      make: (c, r, s) => ambiguityCase(name, c, r, s),
      note: ambiguityNote(name),
    }),
  ),
  ...[
    "dedent-out-of-if:edit",
    "dedent-out-of-if:edit-copied-at-0",
    "dedent-out-of-if:edit_lines",
    "add-at-enclosing-level:edit",
    "add-at-enclosing-level:edit_lines",
    "add-into-block:edit",
    "add-into-block:edit_lines",
    "wrap-in-new-block:edit",
    "wrap-in-new-block:edit_lines",
  ].map(
    (name): ClassSpec => ({
      name,
      group: "reindent",
      langs: PYJS,
      make: (c, r, s) => reindentCase(name, c, r, s),
      note: reindentNote(name),
    }),
  ),
  ...Object.keys(FEATURES).flatMap((f) =>
    ["exact", "from-first-column", ...(f === "triple-string" || f === "template-literal" ? ["inside-string"] : [])].map(
      (v): ClassSpec => ({
        name: `${f}:${v}`,
        group: "feature",
        langs: FEATURES[f].langs,
        make: (c, r, s) => featureCase(`${f}:${v}`, c, r, s),
        note: featureNote(f, v),
      }),
    ),
  ),
  ...[
    "rename-on-one-line",
    "add-import",
    "add-parameter",
    "wrap-try",
    "delete-function",
    "add-method",
    "change-string-literal",
    "insert-before-line",
    "replace-all-rename",
    "multi-edit-two",
    "write-after-read",
    "write-unread",
    "placeholder-variants",
  ].map(
    (name): ClassSpec => ({
      name,
      group: "newcomer",
      langs: PYJS,
      make: (c, r, s) => newcomerCase(name, c, r, s),
      note: newcomerNote(name),
    }),
  ),
  ...["exact", "dedented-copy", "comment-reworded", "blank-missing"].map(
    (v): ClassSpec => ({
      name: `lang:${v}`,
      group: "languages",
      langs: OTHER,
      make: (c, r, s) => languageCase(`lang:${v}`, c, r, s),
      note: `JSON/YAML/TOML/HTML/C/Java/Go/Rust: ${v === "exact" ? "a rename, an added line or a deleted line, copied exactly" : v === "dedented-copy" ? "the block copied with its common indentation removed (old and new alike)" : v === "comment-reworded" ? "a comment on a line left alone reworded in the copy" : "a blank line in the middle missing from the copy"}`,
    }),
  ),
];

function slipNote(n: string): string {
  return (
    {
      "comment-reworded":
        "a comment on a line the model leaves alone comes out with a word missing (old and new alike)",
      "comment-dropped": "the trailing comment of a line the model leaves alone is dropped (old and new alike)",
      "import-reordered": "two adjacent import lines swapped in the copy (old and new alike)",
      "line-merged": "a line ending in a bracket or comma merged with its continuation line in the copy",
      "line-split": "a long line split after another comma in the copy",
      "blank-missing": "a blank line in the middle missing from the copy",
      "blank-extra": "a blank line added in the middle of the copy",
      "tab-space-mix": "some of the copy's lines (not all) indented with tabs in a space-indented file",
      "first-line-unindented":
        "the copy's first line without its indentation, the other lines exact (the change may be on the first line, or delete it)",
    } as Record<string, string>
  )[n];
}
function formatNote(n: string): string {
  return (
    {
      "crlf-model-lf": "CRLF file, the model sends LF; the change may add a line",
      "crlf-model-crlf": "CRLF file, the model sends CRLF",
      "bom-first-line": "file with a BOM; the first line renamed, or a line inserted before it",
      "latin1-neighbour": "a comment with a Latin-1 byte (not UTF-8) on the line right before the edited lines",
      "eof-no-newline":
        "no newline at the end: the last line renamed, a line appended, or old and new given with a newline the file lacks",
      "first-line": "the first line renamed (alone, or with the line after as context)",
    } as Record<string, string>
  )[n];
}
function ambiguityNote(n: string): string {
  return (
    {
      "twice-quoted-at-one":
        "a line the file has at two indentations, quoted whole with one of them (held by one line): that line is meant",
      "twice-quoted-bare": "the same, quoted without indentation (must be refused)",
      "twice-quoted-at-neither": "the same, quoted at an indentation neither has (must be refused)",
    } as Record<string, string>
  )[n];
}
function reindentNote(n: string): string {
  const [what, how] = n.split(":");
  const w = (
    {
      "dedent-out-of-if": "an `if` removed and its body dedented one level",
      "add-at-enclosing-level": "after a block's last line, a statement at the enclosing level (the next line's)",
      "add-into-block": "after a block opener, a statement at the block's indentation",
      "wrap-in-new-block": "1-3 statements wrapped in a new `if` at their level, one level deeper inside",
    } as Record<string, string>
  )[what];
  return `${w}; through ${how === "edit-copied-at-0" ? "edit, old and new both copied from the `if`'s column" : how === "edit" ? "edit, copied exactly" : "edit_lines, content in the file's indentation"}`;
}
function featureNote(f: string, v: string): string {
  const what = (
    {
      decorator: "Python decorators",
      "async-def": "Python async defs",
      match: "Python match statements",
      "fstring-nested": "Python f-strings with nested quotes",
      "triple-string": "Python triple-quoted strings",
      "template-literal": "JS/TS multi-line template literals",
      "regex-literal": "JS/TS regex literals",
    } as Record<string, string>
  )[f];
  return `regions with ${what}: ${v === "exact" ? "copied exactly" : v === "from-first-column" ? "copied from the first line's column (less indented lines kept as they are)" : "a word changed on a line inside the string, copied from the first line's column"}`;
}
function newcomerNote(n: string): string {
  return (
    {
      "rename-on-one-line": "a variable renamed on its assignment line (old_string the line without its indentation)",
      "add-import": "an import added after an existing one",
      "add-parameter": "a parameter added to a one-line signature (quoted without indentation)",
      "wrap-try": "a statement wrapped in try/except (try/catch), quoted whole",
      "delete-function": "a whole function deleted (new_string empty)",
      "add-method": "a method added after a method's last two lines",
      "change-string-literal": "a string literal with \\n, quotes or \\t changed (an escaped \\n and quote added)",
      "multi-edit-two": "a rename and an import in one multi_edit",
      "write-after-read": "the file read, then written whole with a change",
      "write-unread": "the file written whole without reading it (must be refused)",
      "insert-before-line": "a statement added before a line, both quoted without indentation",
      "replace-all-rename": "every call of a function renamed with replace_all (old_string `name(`)",
      "placeholder-variants":
        "new_string keeps the first lines and stands for the rest with a placeholder in one of 16 forms models write (must be refused)",
    } as Record<string, string>
  )[n];
}

export function fileCtx(f: OFile): FileCtx {
  return ctxOf(f);
}
export type { FileCtx };

/** Cases per class, drawn from the files of the languages the class applies to. */
export function generateOutsideCases(
  files: OFile[],
  longFiles: OFile[],
  rng: Rng,
  perClass: number,
  only?: (name: string) => boolean,
): OCase[] {
  const ctxs = new Map<OFile, FileCtx>();
  const ctx = (f: OFile) => {
    let x = ctxs.get(f);
    if (!x) ctxs.set(f, (x = ctxOf(f)));
    return x;
  };
  const out: OCase[] = [];
  let serial = 0;
  for (const spec of CLASSES) {
    if (only && !only(spec.name)) continue;
    const pool =
      spec.corpus === "long"
        ? longFiles
        : files.filter(
            (f) =>
              spec.langs === "all" || (spec.langs === "code" ? CODE.includes(f.lang) : spec.langs.includes(f.lang)),
          );
    if (pool.length === 0) continue;
    // Other languages: spread evenly over them.
    const byLang = new Map<OLang, OFile[]>();
    for (const f of pool) byLang.set(f.lang, [...(byLang.get(f.lang) ?? []), f]);
    const langs = [...byLang.keys()];
    let made = 0;
    for (let attempts = 0; made < perClass && attempts < perClass * 30; attempts++) {
      const lang = langs[attempts % langs.length];
      const f = spec.group === "languages" || spec.group === "format" ? rng.pick(byLang.get(lang)!) : rng.pick(pool);
      serial++;
      let c: OCase | null = null;
      try {
        c = spec.make(ctx(f), rng, serial);
      } catch {
        c = null;
      }
      if (!c) continue;
      if (c.intended !== null && c.intended.equals(c.bytes)) continue;
      out.push(c);
      made++;
    }
  }
  return out;
}
