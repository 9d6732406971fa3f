// The one tree-sitter loader of the process: the WebAssembly runtime and each
// grammar are loaded on first use and kept for the life of the process. Edit
// validation and the shell tool's command parser both go through here, so a
// grammar is never compiled twice.
//
// Everything comes from .wasm files shipped inside npm tarballs (nothing is
// built or downloaded at install or run time):
//   - runtime: `web-tree-sitter` (0.25.x, grammar ABI 13–15);
//   - most grammars: `@vscode/tree-sitter-wasm` (built by VS Code with tree-sitter-cli 0.25);
//   - the grammars that package lacks (C, JSON, HTML, YAML, TOML): the
//     grammar's own npm package, which ships its .wasm beside the native sources
//     (we use only the .wasm; the native binding is never loaded).
// Files are resolved with createRequire, which works from src/ under tsx and
// from the esbuild bundle in dist/ (packages stay external).
import { createRequire } from "node:module";
import type { Language, Parser, Tree } from "web-tree-sitter";

export type { Language, Node as SyntaxNode, Parser, Tree } from "web-tree-sitter";

/** Every language rt can parse. */
export const LANGUAGE_IDS = [
  "bash",
  "c",
  "cpp",
  "csharp",
  "css",
  "go",
  "html",
  "java",
  "javascript",
  "json",
  "php",
  "python",
  "ruby",
  "rust",
  "toml",
  "tsx",
  "typescript",
  "yaml",
] as const;

export type LanguageId = (typeof LANGUAGE_IDS)[number];

/** Module specifier of each grammar's .wasm file. */
const GRAMMAR_FILES: Record<LanguageId, string> = {
  bash: "@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm",
  c: "tree-sitter-c/tree-sitter-c.wasm",
  cpp: "@vscode/tree-sitter-wasm/wasm/tree-sitter-cpp.wasm",
  csharp: "@vscode/tree-sitter-wasm/wasm/tree-sitter-c-sharp.wasm",
  css: "@vscode/tree-sitter-wasm/wasm/tree-sitter-css.wasm",
  go: "@vscode/tree-sitter-wasm/wasm/tree-sitter-go.wasm",
  html: "tree-sitter-html/tree-sitter-html.wasm",
  java: "@vscode/tree-sitter-wasm/wasm/tree-sitter-java.wasm",
  javascript: "@vscode/tree-sitter-wasm/wasm/tree-sitter-javascript.wasm",
  json: "tree-sitter-json/tree-sitter-json.wasm",
  php: "@vscode/tree-sitter-wasm/wasm/tree-sitter-php.wasm",
  python: "@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm",
  ruby: "@vscode/tree-sitter-wasm/wasm/tree-sitter-ruby.wasm",
  rust: "@vscode/tree-sitter-wasm/wasm/tree-sitter-rust.wasm",
  toml: "@tree-sitter-grammars/tree-sitter-toml/tree-sitter-toml.wasm",
  tsx: "@vscode/tree-sitter-wasm/wasm/tree-sitter-tsx.wasm",
  typescript: "@vscode/tree-sitter-wasm/wasm/tree-sitter-typescript.wasm",
  yaml: "@tree-sitter-grammars/tree-sitter-yaml/tree-sitter-yaml.wasm",
};

/** Absolute path of a grammar's .wasm file (throws if its package is not installed). */
function grammarPath(lang: LanguageId): string {
  return createRequire(import.meta.url).resolve(GRAMMAR_FILES[lang]);
}

type Runtime = typeof import("web-tree-sitter");

let runtime: Promise<Runtime> | undefined;
const languages = new Map<LanguageId, Promise<Language>>();
const parsers = new Map<LanguageId, Parser>();

// Imported dynamically so that importing this module (or anything that imports
// it) costs nothing until a file is actually parsed.
function loadRuntime(): Promise<Runtime> {
  if (!runtime) {
    runtime = (async () => {
      const mod = await import("web-tree-sitter");
      await mod.Parser.init();
      return mod;
    })();
    // A failed load is not cached: the next call tries again.
    runtime.catch(() => {
      runtime = undefined;
    });
  }
  return runtime;
}

/** Loads (once per process) and returns the grammar of `lang`. */
export function loadLanguage(lang: LanguageId): Promise<Language> {
  let pending = languages.get(lang);
  if (!pending) {
    pending = (async () => {
      const { Language } = await loadRuntime();
      return Language.load(grammarPath(lang));
    })();
    languages.set(lang, pending);
    pending.catch(() => languages.delete(lang));
  }
  return pending;
}

async function parserFor(lang: LanguageId): Promise<Parser> {
  const language = await loadLanguage(lang);
  let parser = parsers.get(lang);
  if (!parser) {
    const { Parser } = await loadRuntime();
    parser = parsers.get(lang);
    if (!parser) {
      parser = new Parser();
      parser.setLanguage(language);
      parsers.set(lang, parser);
    }
  }
  return parser;
}

export interface ParseOptions {
  /** Give up after this many milliseconds (the result is then null). */
  timeoutMs?: number;
  /**
   * The tree of an earlier version of the text, already told of the change
   * with `tree.edit()`: tree-sitter then re-parses only what the change
   * touched (incremental parsing). The caller still owns it.
   */
  oldTree?: Tree;
}

/**
 * Parses `text` as `lang`. The caller owns the tree and must call `tree.delete()`
 * (it lives in WebAssembly memory, which the garbage collector does not free);
 * `withTree` does that for you. Returns null only when `timeoutMs` ran out.
 */
export async function parse(text: string, lang: LanguageId, options: ParseOptions = {}): Promise<Tree | null> {
  const parser = await parserFor(lang);
  // Parsing is synchronous from here on, so no other caller can interleave on
  // this shared parser. reset() drops the state a cancelled parse leaves behind.
  parser.reset();
  const deadline = options.timeoutMs === undefined ? undefined : performance.now() + options.timeoutMs;
  // The progress callback's return value cancels the parse when true (the type
  // declaration says void, the implementation reads it).
  const progressCallback = deadline === undefined ? undefined : () => performance.now() > deadline;
  return parser.parse(text, options.oldTree ?? null, progressCallback ? { progressCallback } : undefined);
}

/** Parses `text`, runs `use` on the tree, and frees the tree whatever happens. */
export async function withTree<T>(
  text: string,
  lang: LanguageId,
  use: (tree: Tree) => T,
  options: ParseOptions = {},
): Promise<T | null> {
  const tree = await parse(text, lang, options);
  if (!tree) return null;
  try {
    return use(tree);
  } finally {
    tree.delete();
  }
}
