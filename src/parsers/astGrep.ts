// Structural search and rewrite with ast-grep's pattern language ($VAR,
// $$$ARGS) through its Node binding, @ast-grep/napi. The binding ships its
// native binary in npm (per-platform optional packages); it knows HTML,
// JavaScript, TypeScript, TSX and CSS itself, and the other languages come
// from @ast-grep/lang-* packages, which ship prebuilt parsers (parser.so) in
// their npm tarballs, registered once on first use. Loaded lazily: nothing
// here runs until a structural search does.
import { createRequire } from "node:module";
import type { LanguageId } from "./treeSitter.js";
import { ToolError } from "../base/errors.js";
import { AST_GREP_PATTERN_MAX_CHARS, AST_GREP_PATTERN_MAX_DEPTH } from "../base/limits.js";

type Napi = typeof import("@ast-grep/napi");
type SgNode = import("@ast-grep/napi").SgNode;

/** ast-grep's name for each rt language it can search (all of them). */
const AST_GREP_NAMES: Record<LanguageId, string> = {
  bash: "bash",
  c: "c",
  cpp: "cpp",
  csharp: "csharp",
  css: "Css",
  go: "go",
  html: "Html",
  java: "java",
  javascript: "JavaScript",
  json: "json",
  php: "php",
  python: "python",
  ruby: "ruby",
  rust: "rust",
  toml: "toml",
  tsx: "Tsx",
  typescript: "TypeScript",
  yaml: "yaml",
};

/** The languages registered from @ast-grep/lang-* packages (the rest are built into the binding). */
const DYNAMIC: readonly LanguageId[] = [
  "bash",
  "c",
  "cpp",
  "csharp",
  "go",
  "java",
  "json",
  "php",
  "python",
  "ruby",
  "rust",
  "toml",
  "yaml",
];

/** Names people and models use for languages, to rt's. */
const LANGUAGE_ALIASES: Record<string, LanguageId> = {
  ts: "typescript",
  js: "javascript",
  jsx: "javascript",
  py: "python",
  rs: "rust",
  golang: "go",
  "c++": "cpp",
  "c#": "csharp",
  cs: "csharp",
  rb: "ruby",
  sh: "bash",
  shell: "bash",
  yml: "yaml",
};

export function languageNamed(name: string): LanguageId | undefined {
  const key = name.trim().toLowerCase();
  if (Object.hasOwn(AST_GREP_NAMES, key)) return key as LanguageId;
  return LANGUAGE_ALIASES[key];
}

export const AST_GREP_LANGUAGES: readonly LanguageId[] = Object.keys(AST_GREP_NAMES) as LanguageId[];

let napi: Napi | undefined;
/** The character each dynamic language's parser reads `$` of a meta-variable as (µ for Python...). */
const expando = new Map<LanguageId, string>();

function load(): Napi {
  if (napi) return napi;
  const require = createRequire(import.meta.url);
  const mod = require("@ast-grep/napi") as Napi;
  const registrations: Record<string, unknown> = {};
  for (const lang of DYNAMIC) {
    const pkg = require(`@ast-grep/lang-${lang}`) as { expandoChar?: string };
    registrations[AST_GREP_NAMES[lang]] = pkg;
    if (pkg.expandoChar) expando.set(lang, pkg.expandoChar);
  }
  mod.registerDynamicLanguage(registrations as Parameters<Napi["registerDynamicLanguage"]>[0]);
  napi = mod;
  return mod;
}

export interface StructuralMatch {
  /** 0-based positions and UTF-16 offsets into the text. */
  start: { line: number; column: number; index: number };
  end: { line: number; column: number; index: number };
  text: string;
  /** Each named meta-variable of the pattern and the text it matched ($$$ARGS: from its first node to its last). */
  vars: Record<string, string>;
  /**
   * The same text as a rewrite inserts it: a capture that began a line of its
   * own in the source (a Python body after `def f():`, arguments after
   * `call(`) begins one in the rewrite too, at its original indentation.
   */
  layout: Record<string, string>;
  /** Where each capture is in the text (UTF-16 offsets), for captures of at least one node. */
  spans: Record<string, [number, number]>;
}

/** The named meta-variables of a pattern or template: $NAME and $$$NAME (not $_ or $$$). */
function metaVariables(source: string): Array<{ name: string; multi: boolean }> {
  const out = new Map<string, boolean>();
  for (const m of source.matchAll(/\$(\$\$)?([A-Z][A-Z0-9_]*)/g)) if (!out.has(m[2])) out.set(m[2], m[1] !== undefined);
  return [...out].map(([name, multi]) => ({ name, multi }));
}

/** Refuses a pattern longer than AST_GREP_PATTERN_MAX_CHARS (checked before any file is listed). */
export function checkPatternSize(pattern: string): void {
  if (pattern.length > AST_GREP_PATTERN_MAX_CHARS) {
    const n = (x: number) => x.toLocaleString("en-US");
    throw new ToolError(
      `the pattern is ${n(pattern.length)} characters long; ast_grep takes patterns of at most ${n(AST_GREP_PATTERN_MAX_CHARS)} characters (search for a smaller piece of the code)`,
    );
  }
}

/** Patterns already measured (per language): the check parses the pattern, which a search repeats for every file. */
const checkedPatterns = new Set<string>();

/**
 * Refuses a pattern too long or too deeply nested for the binding. ast-grep turns a pattern into
 * its matcher recursively in native code: about 20,000 levels (`((((x))))`, `!!!!x`, `x+x+...`)
 * overflow the native stack and kill the whole process with a segmentation fault, which no
 * try/catch sees. The pattern's depth is measured on its own syntax tree (tree-sitter parses
 * iteratively, and the walk here keeps its own stack), before the binding compiles it.
 */
export function checkPattern(lang: LanguageId, pattern: string): void {
  checkPatternSize(pattern);
  const key = `${lang}\0${pattern}`;
  if (checkedPatterns.has(key)) return;
  const sg = load();
  const char = expando.get(lang) ?? "$";
  const stack: Array<{ node: SgNode; depth: number }> = [
    { node: sg.parse(AST_GREP_NAMES[lang], pattern.replace(/\$/g, char)).root(), depth: 1 },
  ];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > AST_GREP_PATTERN_MAX_DEPTH) {
      throw new ToolError(
        `the pattern nests more than ${AST_GREP_PATTERN_MAX_DEPTH} levels deep as ${lang} code; ast_grep takes patterns nested at most ${AST_GREP_PATTERN_MAX_DEPTH} levels (search for a smaller piece of the code)`,
      );
    }
    for (const child of node.children()) stack.push({ node: child, depth: depth + 1 });
  }
  if (checkedPatterns.size > 1000) checkedPatterns.clear();
  checkedPatterns.add(key);
}

/** Throws the binding's own words when the pattern is not one: "Multiple AST nodes are detected...". */
export function findMatches(text: string, lang: LanguageId, pattern: string): StructuralMatch[] {
  checkPattern(lang, pattern);
  const sg = load();
  const root = sg.parse(AST_GREP_NAMES[lang], text).root();
  const vars = metaVariables(pattern);
  return root.findAll(pattern).map((node) => {
    const r = node.range();
    const captured: Record<string, string> = {};
    const layout: Record<string, string> = {};
    const spans: Record<string, [number, number]> = {};
    const keep = (name: string, from: number, to: number, line: number) => {
      captured[name] = text.slice(from, to);
      spans[name] = [from, to];
      const lineStart = text.lastIndexOf("\n", from - 1) + 1;
      const indent = text.slice(lineStart, from);
      const ownLine = line > r.start.line && /^[ \t]*$/.test(indent);
      layout[name] = ownLine ? `\n${indent}${captured[name]}` : captured[name];
    };
    for (const v of vars) {
      if (v.multi) {
        const nodes = node.getMultipleMatches(v.name);
        if (nodes.length > 0)
          keep(
            v.name,
            nodes[0].range().start.index,
            nodes[nodes.length - 1].range().end.index,
            nodes[0].range().start.line,
          );
        else captured[v.name] = layout[v.name] = "";
      } else {
        const one: SgNode | null = node.getMatch(v.name);
        if (one) keep(v.name, one.range().start.index, one.range().end.index, one.range().start.line);
      }
    }
    return { start: r.start, end: r.end, text: node.text(), vars: captured, layout, spans };
  });
}

/**
 * Whether the pattern itself parses as code of `lang` (meta-variables read as
 * the parser reads them). A pattern with a syntax error matches nothing, which
 * is worth saying instead of "no matches".
 */
export function patternHasSyntaxError(lang: LanguageId, pattern: string): boolean {
  const sg = load();
  const char = expando.get(lang) ?? "$";
  const root = sg.parse(AST_GREP_NAMES[lang], pattern.replace(/\$/g, char)).root();
  return root.find({ rule: { kind: "ERROR" } }) !== null;
}

/**
 * The template with each $NAME / $$$NAME replaced by what the match captured.
 * With `layout`, a capture that began its own line begins one here too (the
 * spaces before it on the template's line are dropped).
 */
export function fillTemplate(template: string, vars: Record<string, string>, layout?: Record<string, string>): string {
  let out = "";
  let at = 0;
  for (const m of template.matchAll(/\$(\$\$)?([A-Z][A-Z0-9_]*)/g)) {
    out += template.slice(at, m.index);
    at = m.index + m[0].length;
    const name = m[2];
    if (!Object.hasOwn(vars, name)) {
      out += m[0];
      continue;
    }
    const value = layout?.[name] ?? vars[name];
    // Only where the template's line has something before the capture: at the start of a line the template's own indentation holds.
    const lineSoFar = out.slice(out.lastIndexOf("\n") + 1);
    if (value.startsWith("\n") && lineSoFar.trim() !== "") out = out.replace(/[ \t]+$/, "") + value;
    else out += vars[name];
  }
  return out + template.slice(at);
}

/** A pattern or template cut at its meta-variables: literal texts around the variables' names. */
function pieces(source: string): { lits: string[]; vars: string[] } {
  const lits: string[] = [];
  const vars: string[] = [];
  let at = 0;
  for (const m of source.matchAll(/\$(\$\$)?([A-Z][A-Z0-9_]*)/g)) {
    lits.push(source.slice(at, m.index));
    vars.push(m[2]);
    at = m.index + m[0].length;
  }
  lits.push(source.slice(at));
  return { lits, vars };
}

const squeeze = (s: string) => s.replace(/\s+/g, "");

/**
 * The rewrite of one match when the template keeps the pattern's variables in
 * order: each literal part the template leaves as the pattern wrote it keeps
 * the source's own text there (its line breaks, spacing, a trailing `;`), so
 * only what the template changes is changed. Undefined when the template
 * reorders, drops or repeats variables (fillTemplate does those).
 */
function keepingLayout(text: string, m: StructuralMatch, pattern: string, template: string): string | undefined {
  const p = pieces(pattern);
  const t = pieces(template);
  if (p.vars.join(" ") !== t.vars.join(" ") || new Set(p.vars).size !== p.vars.length) return undefined;
  if (!p.vars.every((v) => m.spans[v])) return undefined;
  const bounds: number[] = [m.start.index];
  for (const v of p.vars) bounds.push(m.spans[v][0], m.spans[v][1]);
  bounds.push(m.end.index);
  for (let i = 1; i < bounds.length; i++) if (bounds[i] < bounds[i - 1]) return undefined;
  let out = "";
  for (let i = 0; i < t.lits.length; i++) {
    const source = text.slice(bounds[2 * i], bounds[2 * i + 1]);
    out += squeeze(p.lits[i]) === squeeze(t.lits[i]) && squeeze(source) === squeeze(p.lits[i]) ? source : t.lits[i];
    if (i < t.vars.length) out += m.vars[t.vars[i]];
  }
  return out;
}

/**
 * The text with every match of the pattern replaced by the template (matches
 * inside an earlier match are left to it, as ast-grep's own CLI does), and the
 * matches that were rewritten.
 */
export function rewriteText(
  text: string,
  lang: LanguageId,
  pattern: string,
  template: string,
): { text: string; rewritten: StructuralMatch[]; regions: Array<{ start: number; end: number }> } {
  const matches = findMatches(text, lang, pattern).sort((a, b) => a.start.index - b.start.index);
  const kept: StructuralMatch[] = [];
  for (const m of matches) {
    const last = kept[kept.length - 1];
    if (last && m.start.index < last.end.index) continue;
    kept.push(m);
  }
  const parts: string[] = [];
  const regions: Array<{ start: number; end: number }> = [];
  let at = 0;
  let line = 1; // the line of the new text being written
  const newlines = (s: string) => {
    let n = 0;
    for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
    return n;
  };
  for (const m of kept) {
    const before = text.slice(at, m.start.index);
    let filled = keepingLayout(text, m, pattern, template) ?? fillTemplate(template, m.vars, m.layout);
    // `return $V` matches the whole statement, its `;` included; a template written like the pattern keeps it.
    if (m.text.endsWith(";") && !pattern.trimEnd().endsWith(";") && !filled.trimEnd().endsWith(";")) filled += ";";
    line += newlines(before);
    regions.push({ start: line, end: line + newlines(filled) });
    line += newlines(filled);
    parts.push(before, filled);
    at = m.end.index;
  }
  parts.push(text.slice(at));
  return { text: parts.join(""), rewritten: kept, regions };
}

/** The meta-variables the template uses that the pattern does not define (they would be written literally). */
export function undefinedTemplateVariables(pattern: string, template: string): string[] {
  const defined = new Set(metaVariables(pattern).map((v) => v.name));
  return metaVariables(template)
    .map((v) => v.name)
    .filter((n) => !defined.has(n));
}
