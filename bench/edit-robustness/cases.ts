// Generates edit cases: an intended edit on a real file (a unique target
// region and its replacement) and the call a model makes for it, with one
// class of the mistakes models make when they copy text back.
//
// The model's view of the target is its *copy* of the file's lines, distorted
// by the mistake (trailing blanks lost, block dedented, quotes curled...); its
// new_string is that copy with the intended change applied, so the distortion
// runs through both old_string and new_string, as it does with real models.
// The intended result applies the same change to the real lines.
import type { Lang, SourceFile } from "./corpus.ts";
import type { Rng } from "./rng.ts";

export const MISTAKES = [
  "none",
  "trailing-whitespace",
  "indent-shift",
  "indent-drift",
  "tabs-vs-spaces",
  "mixed-whitespace",
  "crlf-file",
  "crlf-model",
  "curly-quotes",
  "doubled-escapes",
  "stale-line-numbers",
  "duplicated-target",
  "hallucinated",
  "misremembered-line",
  // Issue 10: mistake models the matcher was not written against.
  "escapes-old-only",
  "typo-unchanged-line",
  "blank-runs",
  "other-valid-base",
  "wrap-in-block",
  "append-at-level",
  "placeholder",
] as const;
export type Mistake = (typeof MISTAKES)[number];

export const MISTAKE_NOTES: Record<Mistake, string> = {
  none: "control: old_string copied exactly",
  "trailing-whitespace": "trailing blanks dropped (or added) on some lines",
  "indent-shift": "the block dedented to column 0 or indented further, uniformly",
  "indent-drift": "first line's indentation dropped plus a stray trailing blank, or one line off by a space",
  "tabs-vs-spaces": "spaces where the file has tabs, or tabs where it has spaces",
  "mixed-whitespace": "indent-shift and trailing-whitespace together",
  "crlf-file": "CRLF file, the model sends LF",
  "crlf-model": "LF file, the model sends CRLF",
  "curly-quotes": "straight quotes curled in the model's copy, or curly quotes in the file straightened",
  "doubled-escapes": 'old/new escaped twice (literal \\n, \\", \\\\)',
  "stale-line-numbers": "lines were inserted or deleted above the target after the model read the file",
  "duplicated-target": "old_string occurs several times (intent not recoverable: must be rejected)",
  hallucinated: "old_string is not in the file: from another file, or invented lines (must be rejected)",
  "misremembered-line":
    "a one-character typo in a line (changed or not), or the first line quoted from its second word plus a stray blank (best effort: found by similarity only when old_string is long enough)",
  "escapes-old-only":
    'old_string escaped twice (\\n, \\", \\\\), new_string written correctly (only lines with quotes or backslashes)',
  "typo-unchanged-line":
    "a one-character typo on a line the model leaves unchanged, while new_string carries that line correctly (3+ lines)",
  "blank-runs":
    "a blank doubled inside a line, or a blank added inside brackets, in the model's copy (old and new alike)",
  "other-valid-base": "the block copied one level shallower, at a level that is itself open there (old and new alike)",
  "wrap-in-block":
    "Python/JS: one line wrapped in a new `if` written at column 0 (old_string the line's text, new_string the `if` and the line one level in)",
  "append-at-level":
    "Python: a new top-level function written at column 0 right after the last line of an indented block (the file goes on at column 0, or ends)",
  placeholder:
    "new_string keeps the first lines and stands for the rest with `# ... existing code ...` / `// ... existing code ...` (must be rejected: it would delete them)",
};

/** Classes where the intent cannot be recovered from the call: the only right answer is an error. */
export const UNRECOVERABLE: ReadonlySet<Mistake> = new Set<Mistake>([
  "duplicated-target",
  "hallucinated",
  "placeholder",
]);
/** Classes reported but not held to the 97% target. */
export const BEST_EFFORT: ReadonlySet<Mistake> = new Set<Mistake>(["misremembered-line"]);

export interface EditCase {
  id: string;
  file: string;
  lang: Lang;
  mistake: Mistake;
  /** The file as it is now (what a method edits). */
  text: string;
  /** The file as it should be after the edit. */
  intended: string;
  /** The file as the model last read it (differs from `text` only for stale-line-numbers). */
  seenText: string;
  /** The target lines as the model saw them (1-based, inclusive, in seenText): what a line-based call would name. */
  seenStart: number;
  seenEnd: number;
  /** The target lines in `text` (1-based, inclusive): where the edit must land. */
  targetStart: number;
  targetEnd: number;
  /** The lines that should replace the target, exactly as they must end up in the file (no line endings). */
  intendedLines: string[];
  /** The model's replacement lines for a line-based call (its copy, with the mistake). */
  modelLines: string[];
  /** The string-edit call the model makes. */
  edit: { oldString: string; newString: string; replaceAll?: boolean };
  /** False when the right answer is an error (the intent cannot be recovered from the call). */
  recoverable: boolean;
  /** True for fragments inside one line (the line-based methods then replace that whole line). */
  fragment: boolean;
  /** For an insertion: the line-based methods insert modelLines after this line (1-based, in seenText) instead of replacing seenStart..seenEnd. */
  insertAfter?: number;
}

// ---------------------------------------------------------------- helpers

const IDENT = /[A-Za-z_][A-Za-z0-9_]{2,}/g;

function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}
function isBlank(line: string): boolean {
  return line.trim() === "";
}
function trimKey(line: string): string {
  return line.replace(/^[ \t]+|[ \t]+$/g, "");
}
function count(hay: string, needle: string): number {
  let n = 0;
  for (let p = hay.indexOf(needle); p !== -1; p = hay.indexOf(needle, p + 1)) n++;
  return n;
}
/** Windows of whole lines equal to `region` once leading and trailing blanks are ignored. */
function trimmedWindows(keys: string[], region: string[]): number {
  const rk = region.map(trimKey);
  let n = 0;
  outer: for (let i = 0; i + rk.length <= keys.length; i++) {
    for (let j = 0; j < rk.length; j++) if (keys[i + j] !== rk[j]) continue outer;
    n++;
  }
  return n;
}

interface FileInfo {
  file: SourceFile;
  text: string;
  lines: string[];
  /** Lines a region may use: the phantom empty line after a final newline left out. */
  n: number;
  keys: string[];
}

function infoOf(file: SourceFile, text = file.text): FileInfo {
  const lines = text.split("\n");
  const n = lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
  return { file, text, lines, n, keys: lines.slice(0, n).map(trimKey) };
}

// ---------------------------------------------------------------- changes

/** The intended change, in terms of the region's line indexes, so it applies to the real lines and to the model's copy alike. */
type Change =
  | { kind: "modify"; line: number; match: number }
  | { kind: "insert"; line: number; payload: string }
  | { kind: "delete"; line: number };

function payloadFor(lang: Lang, n: number): string {
  return lang === "py" ? `rt_probe_${n}()` : `rtProbe${n}();`;
}

function pickChange(region: string[], rng: Rng, lang: Lang, serial: number): Change | null {
  const withIdents = region.map((l, i) => ({ i, m: [...l.matchAll(IDENT)].length })).filter((x) => x.m > 0);
  const kinds: Change["kind"][] = ["modify", "modify", "insert"];
  if (region.length >= 2) kinds.push("delete");
  const kind = rng.pick(kinds);
  if (kind === "modify") {
    if (withIdents.length === 0) return null;
    const x = rng.pick(withIdents);
    return { kind, line: x.i, match: rng.int(x.m) };
  }
  const nonBlank = region.map((l, i) => i).filter((i) => !isBlank(region[i]));
  if (nonBlank.length === 0) return null;
  if (kind === "insert") return { kind, line: rng.pick(nonBlank), payload: payloadFor(lang, serial) };
  return { kind, line: rng.pick(nonBlank) };
}

function applyChange(lines: string[], ch: Change): string[] {
  const out = [...lines];
  if (ch.kind === "modify") {
    let k = 0;
    out[ch.line] = out[ch.line].replace(IDENT, (m) => (k++ === ch.match ? `${m}_rt` : m));
  } else if (ch.kind === "insert") {
    // After a line that opens a block, the new line goes into the block (as deep as the line after it).
    const opener = /[:{]\s*$/.test(out[ch.line]);
    const next = out.slice(ch.line + 1).find((l) => !isBlank(l));
    const indent =
      opener && next !== undefined && indentOf(next).length > indentOf(out[ch.line]).length
        ? indentOf(next)
        : indentOf(out[ch.line]);
    out.splice(ch.line + 1, 0, indent + ch.payload);
  } else {
    out.splice(ch.line, 1);
  }
  return out;
}

// ---------------------------------------------------------------- mistakes on a copy of lines

function stripOrAddTrailing(lines: string[], rng: Rng): string[] {
  let changed = false;
  const out = lines.map((l) => {
    const t = l.replace(/[ \t]+$/, "");
    if (t !== l) changed = true;
    return t;
  });
  if (!changed) {
    const nonBlank = out.map((l, i) => i).filter((i) => !isBlank(out[i]));
    const targets = nonBlank.filter(() => rng.chance(0.4));
    if (targets.length === 0) targets.push(rng.pick(nonBlank));
    for (const i of targets) out[i] += rng.pick([" ", "  ", "\t"]);
  }
  return out;
}

function commonIndent(lines: string[]): string {
  let common: string | undefined;
  for (const l of lines) {
    if (isBlank(l)) continue;
    const ind = indentOf(l);
    if (common === undefined) common = ind;
    else {
      let k = 0;
      while (k < common.length && k < ind.length && common[k] === ind[k]) k++;
      common = common.slice(0, k);
    }
  }
  return common ?? "";
}

function shiftIndent(lines: string[], rng: Rng): string[] {
  const common = commonIndent(lines);
  if (common.length > 0 && rng.chance(0.6)) return lines.map((l) => (isBlank(l) ? l : l.slice(common.length)));
  const add = common.startsWith("\t") ? "\t" : rng.pick(["    ", "  "]);
  return lines.map((l) => (isBlank(l) ? l : add + l));
}

function driftIndent(lines: string[], rng: Rng): string[] | null {
  const out = [...lines];
  if (indentOf(out[0]).length > 0 && rng.chance(0.5)) {
    out[0] = out[0].slice(indentOf(out[0]).length);
    const i = rng.int(out.length);
    if (isBlank(out[i])) return null;
    out[i] += " ";
    return out;
  }
  const candidates = out.map((l, i) => i).filter((i) => i > 0 && !isBlank(out[i]) && /^ +\S/.test(out[i]));
  if (candidates.length === 0) return null;
  const i = rng.pick(candidates);
  out[i] = rng.chance(0.5) ? out[i].slice(1) : " " + out[i];
  return out;
}

/** The indentation unit of a space-indented file (2 or 4), from the widths it uses. */
function spaceUnit(lines: string[]): number {
  const widths = lines.filter((l) => /^ +\S/.test(l)).map((l) => indentOf(l).length);
  if (widths.length === 0) return 4;
  const fours = widths.filter((w) => w % 4 === 0).length;
  return fours / widths.length > 0.9 ? 4 : 2;
}

function spacesToTabs(line: string, unit: number): string {
  const ind = indentOf(line);
  if (ind.includes("\t") || ind.length === 0) return line;
  return "\t".repeat(Math.floor(ind.length / unit)) + " ".repeat(ind.length % unit) + line.slice(ind.length);
}

function tabsToSpaces(line: string): string {
  const ind = indentOf(line);
  return ind.replace(/\t/g, "    ") + line.slice(ind.length);
}

function curl(lines: string[]): string[] {
  let dq = 0;
  let sq = 0;
  return lines.map((l) =>
    l.replace(/["']/g, (q) => {
      if (q === '"') return dq++ % 2 === 0 ? "\u201C" : "\u201D";
      return sq++ % 2 === 0 ? "\u2018" : "\u2019";
    }),
  );
}

function typo(line: string, rng: Rng): string | null {
  const ids = [...line.matchAll(/[A-Za-z_][A-Za-z0-9_]{3,}/g)];
  if (ids.length === 0) return null;
  const m = rng.pick(ids);
  const at = m.index! + 1 + rng.int(m[0].length - 2);
  const a = line[at];
  const b = line[at + 1];
  if (a === b) return null;
  return line.slice(0, at) + b + a + line.slice(at + 2);
}

const jsonEscape = (s: string): string => JSON.stringify(s).slice(1, -1);

// ---------------------------------------------------------------- case generation

export interface GenerateOptions {
  perClass: number;
  seed: number;
}

interface Region {
  start: number;
  k: number;
}

function pickRegion(
  info: FileInfo,
  rng: Rng,
  minK: number,
  maxK: number,
  need: (lines: string[]) => boolean,
): Region | null {
  for (let attempt = 0; attempt < 40; attempt++) {
    const k = minK + rng.int(maxK - minK + 1);
    if (k > info.n) return null;
    const start = rng.int(info.n - k + 1);
    const lines = info.lines.slice(start, start + k);
    if (isBlank(lines[0]) || isBlank(lines[k - 1])) continue;
    if (lines.join("").replace(/\s/g, "").length < 12) continue;
    if (!need(lines)) continue;
    // The target must be unique even when whitespace is ignored: a model quoting it is then unambiguous.
    if (trimmedWindows(info.keys, lines) !== 1) continue;
    return { start, k };
  }
  return null;
}

interface Built {
  text: string;
  intended: string;
  start: number;
  k: number;
  intendedLines: string[];
  modelOld: string[];
  modelNew: string[];
  finalNewline: boolean;
}

/** Applies `ch` to the real region and to the model's copy, and builds texts. */
function build(info: FileInfo, r: Region, ch: Change, modelCopy: string[], rng: Rng): Built {
  const region = info.lines.slice(r.start, r.start + r.k);
  const intendedLines = applyChange(region, ch);
  // A line the model rewrites is written as the model wrote its end: trailing blanks the file had
  // there are not carried onto it (issue 10), and none the model added are kept.
  if (ch.kind === "modify") {
    const trailing = /[ \t]*$/.exec(intendedLines[ch.line])![0];
    if (trailing)
      intendedLines[ch.line] = intendedLines[ch.line].slice(0, intendedLines[ch.line].length - trailing.length);
  }
  const modelNew = applyChange(modelCopy, ch);
  const before = info.lines.slice(0, r.start);
  const after = info.lines.slice(r.start + r.k);
  const intended = [...before, ...intendedLines, ...after].join("\n");
  return {
    text: info.text,
    intended,
    start: r.start,
    k: r.k,
    intendedLines,
    modelOld: modelCopy,
    modelNew,
    finalNewline: rng.chance(0.2) && r.start + r.k < info.n,
  };
}

function toCall(b: Built): { oldString: string; newString: string } {
  const nl = b.finalNewline ? "\n" : "";
  return { oldString: b.modelOld.join("\n") + nl, newString: b.modelNew.join("\n") + nl };
}

function makeCase(mistake: Mistake, src: SourceFile, rng: Rng, serial: number): EditCase | null {
  const info0 = infoOf(src);
  const id = `${mistake}#${serial}`;
  const base = { id, file: src.name, lang: src.lang, mistake, recoverable: !UNRECOVERABLE.has(mistake) } as const;

  const lineCase = (
    info: FileInfo,
    b: Built,
    call: { oldString: string; newString: string },
    extra: Partial<EditCase> = {},
  ): EditCase => ({
    ...base,
    text: b.text,
    intended: b.intended,
    seenText: b.text,
    seenStart: b.start + 1,
    seenEnd: b.start + b.k,
    targetStart: b.start + 1,
    targetEnd: b.start + b.k,
    intendedLines: b.intendedLines,
    modelLines: b.modelNew,
    edit: call,
    fragment: false,
    ...extra,
  });

  /** A whole-line region whose model copy is `distort`ed (an undistorted copy only when `exactCopy`). */
  const simple = (
    minK: number,
    maxK: number,
    need: (l: string[]) => boolean,
    distort: (l: string[]) => string[] | null,
    info = info0,
    exactCopy = false,
  ): EditCase | null => {
    const r = pickRegion(info, rng, minK, maxK, need);
    if (!r) return null;
    const region = info.lines.slice(r.start, r.start + r.k);
    const copy = distort(region);
    if (!copy || (!exactCopy && copy.join("\n") === region.join("\n"))) return null;
    const ch = pickChange(region, rng, src.lang, serial);
    if (!ch) return null;
    const b = build(info, r, ch, copy, rng);
    return lineCase(info, b, toCall(b));
  };
  const same = (l: string[]): string[] => [...l];

  if ((MISTAKES as readonly string[]).indexOf(mistake) >= MISTAKES.indexOf("escapes-old-only"))
    return issue10Case(mistake, info0, src, rng, serial, base, lineCase);
  switch (mistake) {
    case "none": {
      if (rng.chance(0.25)) return fragmentCase(info0, rng, base, serial, (s) => s);
      const r = pickRegion(info0, rng, 1, 8, () => true);
      if (!r) return null;
      const region = info0.lines.slice(r.start, r.start + r.k);
      const ch = pickChange(region, rng, src.lang, serial);
      if (!ch) return null;
      const b = build(info0, r, ch, region, rng);
      return lineCase(info0, b, toCall(b));
    }
    case "trailing-whitespace":
      return simple(
        1,
        8,
        () => true,
        (l) => stripOrAddTrailing(l, rng),
      );
    case "indent-shift":
      return simple(
        2,
        8,
        (l) => l.some((x) => !isBlank(x)),
        (l) => shiftIndent(l, rng),
      );
    case "indent-drift":
      return simple(
        2,
        8,
        (l) => l.some((x, i) => i > 0 && indentOf(x).length > 0),
        (l) => driftIndent(l, rng),
      );
    case "mixed-whitespace":
      return simple(
        2,
        8,
        () => true,
        (l) => stripOrAddTrailing(shiftIndent(l, rng), rng),
      );
    case "tabs-vs-spaces": {
      const fileUsesTabs =
        info0.lines.filter((l) => l.startsWith("\t")).length > info0.lines.filter((l) => /^ {2}/.test(l)).length;
      const makeTabFile = !fileUsesTabs && rng.chance(0.5);
      const unit = spaceUnit(info0.lines);
      // Half the cases turn the file's indentation into tabs first (tab-indented code is common; the corpus has little).
      const info = makeTabFile ? infoOf(src, info0.lines.map((l) => spacesToTabs(l, unit)).join("\n")) : info0;
      const tabs = fileUsesTabs || makeTabFile;
      return simple(
        2,
        8,
        (l) => l.some((x) => indentOf(x).length > 0),
        (l) => (tabs ? l.map(tabsToSpaces) : l.map((x) => spacesToTabs(x, unit))),
        info,
      );
    }
    case "crlf-file": {
      // The model's copy is exact; only the file has CRLF endings.
      const c = simple(1, 8, () => true, same, info0, true);
      if (!c) return null;
      const crlf = (s: string): string => s.replace(/\n/g, "\r\n");
      return { ...c, text: crlf(c.text), intended: crlf(c.intended), seenText: crlf(c.seenText) };
    }
    case "crlf-model": {
      const c = simple(2, 8, () => true, same, info0, true);
      if (!c) return null;
      const crlf = (s: string): string => s.replace(/\n/g, "\r\n");
      return { ...c, edit: { oldString: crlf(c.edit.oldString), newString: crlf(c.edit.newString) } };
    }
    case "curly-quotes": {
      const hasQuote = (l: string[]): boolean => l.some((x) => /["']/.test(x));
      if (rng.chance(0.25))
        return fragmentCase(
          info0,
          rng,
          base,
          serial,
          (s) => curl([s])[0],
          (s) => /["']/.test(s),
        );
      if (rng.chance(0.5)) return simple(1, 8, hasQuote, (l) => curl(l));
      // The file has the typographic quotes (as docs and comments often do); the model types straight ones.
      const r = pickRegion(info0, rng, 1, 8, hasQuote);
      if (!r) return null;
      const curled = curl(info0.lines.slice(r.start, r.start + r.k));
      const lines = [...info0.lines];
      lines.splice(r.start, r.k, ...curled);
      const info = infoOf(src, lines.join("\n"));
      const ch = pickChange(curled, rng, src.lang, serial);
      if (!ch) return null;
      const b = build(info, r, ch, info0.lines.slice(r.start, r.start + r.k), rng);
      return lineCase(info, b, toCall(b));
    }
    case "doubled-escapes": {
      // Whole-line cases are encoded by generateCases, after the change is applied.
      if (rng.chance(0.25))
        return fragmentCase(
          info0,
          rng,
          base,
          serial,
          (s) => s,
          (s) => /["'\\]/.test(s),
          jsonEscape,
        );
      return simple(1, 8, (l) => l.length > 1 || /["\\]/.test(l[0]), same, info0, true);
    }
    case "stale-line-numbers": {
      const r = pickRegion(info0, rng, 1, 8, () => true);
      if (!r || r.start < 3) return null;
      const region = info0.lines.slice(r.start, r.start + r.k);
      const ch = pickChange(region, rng, src.lang, serial);
      if (!ch) return null;
      // An earlier edit above the target, after the model read the file.
      const at = rng.int(r.start - 1);
      const lines = [...info0.lines];
      let shift: number;
      if (rng.chance(0.6)) {
        const add = 1 + rng.int(5);
        lines.splice(
          at,
          0,
          ...Array.from({ length: add }, (_, i) => indentOf(lines[at] ?? "") + payloadFor(src.lang, 9000 + i)),
        );
        shift = add;
      } else {
        const del = Math.min(1 + rng.int(3), r.start - at);
        lines.splice(at, del);
        shift = -del;
      }
      const info = infoOf(src, lines.join("\n"));
      const moved: Region = { start: r.start + shift, k: r.k };
      const b = build(info, moved, ch, region, rng);
      return { ...lineCase(info, b, toCall(b)), seenText: info0.text, seenStart: r.start + 1, seenEnd: r.start + r.k };
    }
    case "duplicated-target":
      return duplicatedCase(info0, rng, base);
    case "hallucinated":
      return null; // needs a second file: see makeHallucinated
    case "misremembered-line": {
      const r = pickRegion(info0, rng, 4, 10, () => true);
      if (!r) return null;
      const region = info0.lines.slice(r.start, r.start + r.k);
      const ch = pickChange(region, rng, src.lang, serial);
      if (!ch) return null;
      const copy = [...region];
      const variant = rng.int(3);
      if (variant === 2) {
        // Quoted from the middle of the first line (its first word left out), plus a stray trailing blank.
        const m = /^([ \t]*)(\S+ )(\S.*)$/.exec(copy[0]);
        if (!m || (ch.kind === "modify" && ch.line === 0)) return null;
        copy[0] = m[3];
        const j = 1 + rng.int(copy.length - 1);
        if (isBlank(copy[j])) return null;
        copy[j] += " ";
      } else {
        // A one-character typo, in a line the model leaves alone or in the very line it changes.
        const lines = region
          .map((l, i) => i)
          .filter(
            (i) => !isBlank(region[i]) && (variant === 0 ? i !== ch.line : i === ch.line && ch.kind === "modify"),
          );
        if (lines.length === 0) return null;
        const i = rng.pick(lines);
        const t = typo(region[i], rng);
        if (!t) return null;
        copy[i] = t;
      }
      const b = build(info0, r, ch, copy, rng);
      return lineCase(info0, b, toCall(b));
    }
  }
  return null;
}

/** Python: which lines start inside a triple-quoted string (a docstring's text is not code). */
function insideTripleString(info: FileInfo): boolean[] {
  const out: boolean[] = [];
  let open: string | null = null;
  for (const line of info.lines) {
    out.push(open !== null);
    for (const m of line.matchAll(/\\.|"""|\'\'\'|#/g)) {
      if (m[0].startsWith("\\")) continue;
      if (m[0] === "#") {
        if (open === null) break;
        continue;
      }
      if (open === null) open = m[0];
      else if (open === m[0]) open = null;
    }
  }
  return out;
}

/** The indentation unit of a file (for a new block's body). */
function unitOf(info: FileInfo): string {
  const tabs = info.lines.filter((l) => l.startsWith("\t")).length > info.lines.filter((l) => /^ {2}/.test(l)).length;
  return tabs ? "\t" : " ".repeat(spaceUnit(info.lines));
}

/** Issue 10's mistake models (see MISTAKE_NOTES). */
function issue10Case(
  mistake: Mistake,
  info: FileInfo,
  src: SourceFile,
  rng: Rng,
  serial: number,
  base: Base,
  lineCase: (
    info: FileInfo,
    b: Built,
    call: { oldString: string; newString: string },
    extra?: Partial<EditCase>,
  ) => EditCase,
): EditCase | null {
  const py = src.lang === "py";
  switch (mistake) {
    case "escapes-old-only": {
      const r = pickRegion(info, rng, 1, 6, (l) => l.some((x) => /["\\]/.test(x)));
      if (!r) return null;
      const region = info.lines.slice(r.start, r.start + r.k);
      const ch = pickChange(region, rng, src.lang, serial);
      if (!ch) return null;
      const b = build(info, r, ch, region, rng);
      const call = toCall(b);
      return lineCase(info, b, { oldString: jsonEscape(call.oldString), newString: call.newString });
    }
    case "typo-unchanged-line": {
      const r = pickRegion(info, rng, 4, 10, () => true);
      if (!r) return null;
      const region = info.lines.slice(r.start, r.start + r.k);
      const ch = pickChange(region, rng, src.lang, serial);
      if (!ch) return null;
      const lines = region
        .map((l, i) => i)
        .filter((i) => !isBlank(region[i]) && i !== ch.line && !(ch.kind === "insert" && i === ch.line));
      if (lines.length === 0) return null;
      const i = rng.pick(lines);
      const t = typo(region[i], rng);
      if (!t) return null;
      const copy = [...region];
      copy[i] = t;
      // old_string has the typo; new_string is the true lines with the change.
      const b = build(info, r, ch, region, rng);
      const call = toCall(b);
      const old = [...copy].join("\n") + (b.finalNewline ? "\n" : "");
      return lineCase(info, b, { oldString: old, newString: call.newString });
    }
    case "blank-runs": {
      const r = pickRegion(info, rng, 1, 6, (l) => l.some((x) => / \S/.test(x.trim()) || /[(\[]/.test(x)));
      if (!r) return null;
      const region = info.lines.slice(r.start, r.start + r.k);
      const copy = [...region];
      const cands = copy.map((l, i) => i).filter((i) => / \S/.test(copy[i].trim()) || /[(\[][^)\]]/.test(copy[i]));
      if (cands.length === 0) return null;
      const i = rng.pick(cands);
      const ind = indentOf(copy[i]);
      const body = copy[i].slice(ind.length);
      const spaces = [...body.matchAll(/ (?=\S)/g)].map((m) => m.index!);
      const opens = [...body.matchAll(/[(\[](?=[^)\] ])/g)].map((m) => m.index! + 1);
      if (spaces.length && (rng.chance(0.5) || !opens.length)) {
        const at = rng.pick(spaces);
        copy[i] = ind + body.slice(0, at) + " " + body.slice(at);
      } else if (opens.length) {
        const at = rng.pick(opens);
        copy[i] = ind + body.slice(0, at) + " " + body.slice(at);
      } else return null;
      const ch = pickChange(region, rng, src.lang, serial);
      if (!ch) return null;
      const b = build(info, r, ch, copy, rng);
      // A line the model changes is written as it wrote it, its spacing included (issue 10: lines
      // the caller changed take new_string's text); only the lines it left alone keep the file's.
      // Except inside a string literal, where blanks are content: a blank the model's copy doubled
      // there, away from the words it changed, is a slip of memory, and the string keeps the file's.
      if (ch.kind === "modify" && ch.line === i) {
        const doubledAt = firstDifference(region[i], copy[i]);
        b.intendedLines[ch.line] = inQuotes(region[i], doubledAt, openLiteral(info.lines, r.start + i))
          ? withoutSlip(copy[i], b.modelNew[ch.line], doubledAt)
          : b.modelNew[ch.line];
        b.intended = [...info.lines.slice(0, r.start), ...b.intendedLines, ...info.lines.slice(r.start + r.k)].join(
          "\n",
        );
      }
      return lineCase(info, b, toCall(b));
    }
    case "other-valid-base": {
      const unit = unitOf(info);
      if (unit === "\t") return null;
      // A block one level in from its enclosing line, copied at the enclosing line's level (open there too).
      const r = pickRegion(info, rng, 2, 6, (l) => {
        const ind = l.filter((x) => !isBlank(x)).map((x) => indentOf(x).length);
        return ind.length > 0 && Math.min(...ind) >= unit.length * 2;
      });
      if (!r) return null;
      const region = info.lines.slice(r.start, r.start + r.k);
      const copy = region.map((l) => (isBlank(l) ? l : l.slice(unit.length)));
      const ch = pickChange(region, rng, src.lang, serial);
      if (!ch) return null;
      const b = build(info, r, ch, copy, rng);
      return lineCase(info, b, toCall(b));
    }
    case "wrap-in-block": {
      const unit = unitOf(info);
      const inString = py ? insideTripleString(info) : [];
      for (let attempt = 0; attempt < 40; attempt++) {
        const li = rng.int(info.n);
        const line = info.lines[li];
        if (inString[li] || /^\s*(\*|\/\*|\/\/)/.test(line)) continue;
        const ind = indentOf(line);
        const text = line.slice(ind.length).trimEnd();
        if (ind.length === 0 || isBlank(line) || text.length < 8) continue;
        // A simple statement: not opening or closing a block, not continued.
        if (
          py
            ? /[:\\,(\[{]$|^(elif|else|except|finally|@|#|return\b|yield\b|raise\b|break\b|continue\b|pass\b)|^["']/.test(
                text,
              )
            : !/;$/.test(text) || /^(\}|\/\/|\*|case |default:|return\b|break\b|continue\b)/.test(text)
        )
          continue;
        if (count(info.text, text) !== 1) continue;
        const prev =
          info.lines
            .slice(0, li)
            .reverse()
            .find((l) => !isBlank(l)) ?? "";
        if (py && /[\\(,[{]$/.test(prev.trimEnd())) continue;
        if (!py && /[(,[=]$/.test(prev.trimEnd())) continue;
        const head = py ? `if rt_flag_${serial}:` : `if (rtFlag${serial}) {`;
        // The model indents the new block's body as the file does.
        const model = py ? [head, `${unit}${text}`] : [head, `${unit}${text}`, "}"];
        const intendedLines = py ? [ind + head, ind + unit + text] : [ind + head, ind + unit + text, ind + "}"];
        const lines = [...info.lines];
        lines.splice(li, 1, ...intendedLines);
        return {
          ...base,
          text: info.text,
          intended: lines.join("\n"),
          seenText: info.text,
          seenStart: li + 1,
          seenEnd: li + 1,
          targetStart: li + 1,
          targetEnd: li + 1,
          intendedLines,
          modelLines: model,
          edit: { oldString: text, newString: model.join("\n") },
          fragment: true,
        };
      }
      return null;
    }
    case "append-at-level": {
      if (!py) return null;
      const inString = insideTripleString(info);
      for (let attempt = 0; attempt < 60; attempt++) {
        const li = rng.int(info.n);
        const line = info.lines[li];
        if (inString[li] || (li + 1 < info.lines.length && inString[li + 1])) continue;
        const text = line.trim();
        if (
          isBlank(line) ||
          indentOf(line).length === 0 ||
          text.length < 6 ||
          /[:\\,(\[{]$/.test(text) ||
          /^["'#@]/.test(text)
        )
          continue;
        const next = info.lines.slice(li + 1, info.n).find((l) => !isBlank(l));
        if (
          next !== undefined &&
          (indentOf(next).length !== 0 ||
            /^(else|elif|except|finally)\b/.test(next.trim()) ||
            /^[)\]}]/.test(next.trim()))
        )
          continue;
        if (count(info.text, text) !== 1) continue;
        // Not inside a bracket or string that continues past this line: the next line starts a statement.
        const fn = [`def rt_helper_${serial}():`, `    return ${serial}`];
        const intendedLines = [line, "", ...fn];
        const lines = [...info.lines];
        lines.splice(li, 1, ...intendedLines);
        return {
          ...base,
          text: info.text,
          intended: lines.join("\n"),
          seenText: info.text,
          seenStart: li + 1,
          seenEnd: li + 1,
          targetStart: li + 1,
          targetEnd: li + 1,
          intendedLines,
          modelLines: ["", ...fn],
          insertAfter: li + 1,
          edit: { oldString: text, newString: [text, "", ...fn].join("\n") },
          fragment: true,
        };
      }
      return null;
    }
    case "placeholder": {
      const r = pickRegion(info, rng, 4, 10, (l) => l.filter((x) => !isBlank(x)).length >= 4);
      if (!r) return null;
      const region = info.lines.slice(r.start, r.start + r.k);
      const keep = 1 + rng.int(Math.max(1, region.length - 3));
      const ind = indentOf(region.slice(keep).find((l) => !isBlank(l)) ?? "");
      const marker = ind + (py ? "# ... existing code ..." : "// ... existing code ...");
      const changed = applyChange(region.slice(0, keep), {
        kind: "insert",
        line: 0,
        payload: payloadFor(src.lang, serial),
      });
      const neu = [...changed, marker];
      return {
        ...base,
        text: info.text,
        intended: info.text,
        seenText: info.text,
        seenStart: r.start + 1,
        seenEnd: r.start + r.k,
        targetStart: r.start + 1,
        targetEnd: r.start + r.k,
        intendedLines: region,
        modelLines: neu,
        edit: { oldString: region.join("\n"), newString: neu.join("\n") },
        fragment: false,
      };
    }
  }
  return null;
}

type Base = Pick<EditCase, "id" | "file" | "lang" | "mistake" | "recoverable">;

/** A fragment inside one line (an expression, a call), distorted by `distort`, the call optionally encoded by `encode`. */
function fragmentCase(
  info: FileInfo,
  rng: Rng,
  base: Base,
  serial: number,
  distort: (s: string) => string,
  need: (s: string) => boolean = () => true,
  encode: (s: string) => string = (s) => s,
): EditCase | null {
  for (let attempt = 0; attempt < 40; attempt++) {
    const li = rng.int(info.n);
    const line = info.lines[li];
    const ids = [...line.matchAll(IDENT)];
    if (ids.length < 2) continue;
    const a = rng.int(ids.length - 1);
    const b = a + 1 + rng.int(ids.length - a - 1);
    const from = ids[a].index!;
    const to =
      ids[b].index! +
      ids[b][0].length +
      (rng.chance(0.5) ? Math.min(3, line.length - ids[b].index! - ids[b][0].length) : 0);
    const frag = line.slice(from, to);
    if (frag.length < 10 || frag.trim() !== frag || !need(frag)) continue;
    if (count(info.text, frag) !== 1) continue;
    const copy = distort(frag);
    const encoded = encode(copy);
    if (encoded === frag) continue;
    const k = rng.int(b - a + 1);
    let n = 0;
    const change = (s: string): string => s.replace(IDENT, (m) => (n++ === k ? `${m}_rt` : m));
    n = 0;
    const newFrag = change(frag);
    n = 0;
    const newCopy = change(copy);
    const newLine = line.slice(0, from) + newFrag + line.slice(to);
    const lines = [...info.lines];
    lines[li] = newLine;
    const modelLine = line.slice(0, from) + newCopy + line.slice(to);
    return {
      ...base,
      text: info.text,
      intended: lines.join("\n"),
      seenText: info.text,
      seenStart: li + 1,
      seenEnd: li + 1,
      targetStart: li + 1,
      targetEnd: li + 1,
      intendedLines: [newLine],
      modelLines: [modelLine],
      edit: { oldString: encoded, newString: encode(newCopy) },
      fragment: true,
    };
  }
  return null;
}

/** old_string that occurs several times: a whole line or an identifier-led fragment repeated in the file. */
function duplicatedCase(info: FileInfo, rng: Rng, base: Base): EditCase | null {
  const seen = new Map<string, number[]>();
  for (let i = 0; i < info.n; i++) {
    const l = info.lines[i];
    if (trimKey(l).length < 8 || !IDENT.test(l)) continue;
    IDENT.lastIndex = 0;
    const list = seen.get(l);
    if (list) list.push(i);
    else seen.set(l, [i]);
  }
  const repeated = [...seen.entries()].filter(([, v]) => v.length >= 2);
  if (repeated.length === 0) return null;
  const [line, at] = rng.pick(repeated);
  const target = rng.pick(at);
  const ids = [...line.matchAll(IDENT)];
  const k = rng.int(ids.length);
  let n = 0;
  const newLine = line.replace(IDENT, (m) => (n++ === k ? `${m}_rt` : m));
  const useFragment = rng.chance(0.3);
  const oldString = useFragment ? trimKey(line) : line;
  const newString = useFragment ? trimKey(newLine) : newLine;
  const lines = [...info.lines];
  lines[target] = newLine;
  return {
    ...base,
    text: info.text,
    intended: lines.join("\n"),
    seenText: info.text,
    seenStart: target + 1,
    seenEnd: target + 1,
    targetStart: target + 1,
    targetEnd: target + 1,
    intendedLines: [newLine],
    modelLines: [newLine],
    edit: { oldString, newString },
    fragment: useFragment,
  };
}

/** old_string that is not in the file: lines from another file, or the target with invented lines. */
function hallucinatedCase(info: FileInfo, other: FileInfo, rng: Rng, base: Base, serial: number): EditCase | null {
  const fromOther = rng.chance(0.5);
  if (fromOther) {
    const r = pickRegion(other, rng, 2, 6, () => true);
    if (!r) return null;
    const region = other.lines.slice(r.start, r.start + r.k);
    if (trimmedWindows(info.keys, region) > 0) return null;
    const ch = pickChange(region, rng, other.file.lang, serial);
    if (!ch) return null;
    const modelNew = applyChange(region, ch);
    return {
      ...base,
      text: info.text,
      intended: info.text,
      seenText: info.text,
      seenStart: 1,
      seenEnd: 1,
      targetStart: 1,
      targetEnd: 1,
      intendedLines: [],
      modelLines: modelNew,
      edit: { oldString: region.join("\n"), newString: modelNew.join("\n") },
      fragment: false,
    };
  }
  // The target, as the model imagines it: an invented line in the middle and a renamed identifier.
  const r = pickRegion(info, rng, 3, 8, (l) => l.some((x) => [...x.matchAll(IDENT)].length > 0));
  if (!r) return null;
  const region = info.lines.slice(r.start, r.start + r.k);
  const copy = [...region];
  const mid = 1 + rng.int(r.k - 1);
  copy.splice(
    mid,
    0,
    indentOf(region[mid - 1]) +
      (info.file.lang === "py" ? "self._validate_state(strict=True)" : "this.validateState({ strict: true });"),
  );
  const withIds = copy.map((l, i) => i).filter((i) => i !== mid && [...copy[i].matchAll(IDENT)].length > 0);
  const j = rng.pick(withIds);
  copy[j] = copy[j].replace(IDENT, (m) => `${m}Value`);
  const ch = pickChange(region, rng, info.file.lang, serial);
  if (!ch || ch.line >= mid) return null;
  const b = build(info, r, ch, copy, rng);
  return {
    ...base,
    text: info.text,
    intended: b.intended,
    seenText: info.text,
    seenStart: r.start + 1,
    seenEnd: r.start + r.k,
    targetStart: r.start + 1,
    targetEnd: r.start + r.k,
    intendedLines: b.intendedLines,
    modelLines: b.modelNew,
    edit: toCall(b),
    fragment: false,
  };
}

export function generateCases(files: SourceFile[], rng: Rng, perClass: number): EditCase[] {
  const out: EditCase[] = [];
  let serial = 0;
  for (const mistake of MISTAKES) {
    let made = 0;
    let attempts = 0;
    while (made < perClass && attempts < perClass * 40) {
      attempts++;
      const src = rng.pick(files);
      serial++;
      let c: EditCase | null;
      if (mistake === "hallucinated") {
        const other = rng.pick(files);
        if (other === src) continue;
        c = hallucinatedCase(
          infoOf(src),
          infoOf(other),
          rng,
          { id: `${mistake}#${serial}`, file: src.name, lang: src.lang, mistake, recoverable: false },
          serial,
        );
      } else {
        c = makeCase(mistake, src, rng, serial);
      }
      if (!c) continue;
      if (mistake === "doubled-escapes" && !c.fragment) {
        c = { ...c, edit: { oldString: jsonEscape(c.edit.oldString), newString: jsonEscape(c.edit.newString) } };
      }
      if (c.intended === c.text && c.recoverable) continue;
      out.push(c);
      made++;
    }
  }
  return out;
}

/** The first index where two strings differ. */
function firstDifference(a: string, b: string): number {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  return k;
}

/** Whether offset `at` of a line lies between quotes opened on that line (', ", `). */
function inQuotes(line: string, at: number, startsIn?: string): boolean {
  let open: string | undefined = startsIn;
  for (let k = 0; k < at && k < line.length; k++) {
    const c = line[k];
    if (open) {
      if (c === "\\") k++;
      else if (line.startsWith(open, k)) {
        k += open.length - 1;
        open = undefined;
      }
    } else if (line.startsWith('"""', k) || line.startsWith("'''", k)) {
      open = line.slice(k, k + 3);
      k += 2;
    } else if (c === "'" || c === '"' || c === "`") open = c;
  }
  return open !== undefined;
}

/**
 * The delimiter of a literal that spans lines (a Python triple-quoted string, a JavaScript
 * template literal) still open where line `at` starts, else undefined: its lines are inside a
 * string, where blanks are content, though no quote is on them.
 */
function openLiteral(lines: string[], at: number): string | undefined {
  let open: string | undefined;
  for (let i = 0; i < at; i++) {
    const line = lines[i];
    for (let k = 0; k < line.length; k++) {
      const c = line[k];
      if (open) {
        if (c === "\\") k++;
        else if (line.startsWith(open, k)) {
          k += open.length - 1;
          open = undefined;
        }
      } else if (c === "#" || (c === "/" && line[k + 1] === "/")) break;
      else if (line.startsWith('"""', k) || line.startsWith("'''", k)) {
        open = line.slice(k, k + 3);
        k += 2;
      } else if (c === "`") open = c;
      else if (c === "'" || c === '"') {
        // A one-line literal: skipped to its end.
        let j = k + 1;
        while (j < line.length && line[j] !== c) j += line[j] === "\\" ? 2 : 1;
        k = j;
      }
    }
    if (open && open.length === 1 && open !== "`") open = undefined;
  }
  return open;
}

/**
 * The model's new line without the blank its copy doubled at `at` (copy: the line as the
 * model quoted it), when its change is elsewhere on the line; as written when the change
 * touches that place (then the spacing there is the model's own).
 */
function withoutSlip(copy: string, written: string, at: number): string {
  let p = 0;
  while (p < copy.length && p < written.length && copy[p] === written[p]) p++;
  let q = 0;
  while (q < copy.length - p && q < written.length - p && copy[copy.length - 1 - q] === written[written.length - 1 - q])
    q++;
  if (at < p - 1) return written.slice(0, at) + written.slice(at + 1);
  if (at >= copy.length - q + 1) {
    const w = at + (written.length - copy.length);
    return written.slice(0, w) + written.slice(w + 1);
  }
  return written;
}
