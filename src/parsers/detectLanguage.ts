// Which tree-sitter grammar a file is written in: by its name (extension or a
// well-known file name), else by its shebang line. Null means "not a language
// we parse": callers skip syntax checks then, they do not fail.
import { basename, extname } from "node:path";
import type { LanguageId } from "./treeSitter.ts";

const BY_EXTENSION: Record<string, LanguageId> = {
  ".sh": "bash",
  ".bash": "bash",
  ".c": "c",
  // Headers go to the C++ grammar: it parses C headers as well, while the C
  // grammar would see every class or template in a C++ header as an error.
  ".h": "cpp",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".c++": "cpp",
  ".hh": "cpp",
  ".hpp": "cpp",
  ".hxx": "cpp",
  ".h++": "cpp",
  ".ipp": "cpp",
  ".tpp": "cpp",
  ".inl": "cpp",
  ".cs": "csharp",
  ".css": "css",
  ".go": "go",
  ".html": "html",
  ".htm": "html",
  ".xhtml": "html",
  ".java": "java",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".json": "json",
  ".php": "php",
  ".phtml": "php",
  ".py": "python",
  ".pyi": "python",
  ".pyw": "python",
  ".rb": "ruby",
  ".rake": "ruby",
  ".gemspec": "ruby",
  ".ru": "ruby",
  ".rs": "rust",
  ".toml": "toml",
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".yaml": "yaml",
  ".yml": "yaml",
};

// Files whose name alone says the language.
const BY_NAME: Record<string, LanguageId> = {
  ".bashrc": "bash",
  ".bash_profile": "bash",
  ".bash_login": "bash",
  ".bash_logout": "bash",
  ".profile": "bash",
  Gemfile: "ruby",
  Rakefile: "ruby",
  Guardfile: "ruby",
  Vagrantfile: "ruby",
  "Cargo.lock": "toml",
};

// Interpreter named by a shebang (after `env` and its options), version suffixes removed.
const BY_INTERPRETER: Record<string, LanguageId> = {
  sh: "bash",
  bash: "bash",
  dash: "bash",
  ksh: "bash",
  node: "javascript",
  nodejs: "javascript",
  deno: "typescript",
  bun: "typescript",
  "ts-node": "typescript",
  tsx: "typescript",
  python: "python",
  pypy: "python",
  ruby: "ruby",
  php: "php",
};

/** The interpreter a `#!` line runs, or null when there is no shebang. */
export function shebangInterpreter(text: string): string | null {
  if (!text.startsWith("#!")) return null;
  const end = text.indexOf("\n");
  const words = text
    .slice(2, end === -1 ? undefined : end)
    .trim()
    .split(/\s+/);
  let program = basename(words[0] ?? "");
  let i = 1;
  if (program === "env") {
    // `#!/usr/bin/env -S node --flag` or `#!/usr/bin/env VAR=1 python3`.
    while (i < words.length && (words[i].startsWith("-") || words[i].includes("="))) i++;
    program = basename(words[i] ?? "");
  }
  return program || null;
}

/**
 * The language of `path`, from its extension or name; when those say nothing,
 * from the shebang of `text` (its content). Null when unknown.
 */
export function detectLanguage(path: string, text?: string): LanguageId | null {
  const name = basename(path);
  const byName = BY_NAME[name];
  if (byName) return byName;
  const byExt = BY_EXTENSION[extname(name).toLowerCase()];
  if (byExt) return byExt;
  if (text === undefined) return null;
  const interpreter = shebangInterpreter(text.startsWith("\uFEFF") ? text.slice(1) : text);
  if (!interpreter) return null;
  // python3, python3.12, ruby2.7, php8.1 …
  const bare = interpreter.replace(/[\d.]+$/, "");
  return BY_INTERPRETER[interpreter] ?? BY_INTERPRETER[bare] ?? null;
}
