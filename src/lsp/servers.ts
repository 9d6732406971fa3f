// Which language server serves which file, and how to start it. rt's own:
// TypeScript/JavaScript through typescript-language-server and Python through
// pyright, both from rt's npm dependencies and run with rt's own Node; gopls,
// rust-analyzer and clangd when they are on the PATH rt started with (never
// from inside the workspace). Servers in the configuration (`lsp.servers`) win
// for their extensions; a project's servers apply only once the folder is
// trusted (configTrust.ts), since a server is a program the repository picks.
//
// typescript-language-server would use the workspace's own
// node_modules/typescript: rt points it at its own TypeScript instead, so no
// code of the repository runs.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { findSystemProgram, STARTUP_PATH } from "../base/systemProgram.js";
import type { RtConfig } from "../base/config.js";

export interface ServerSpec {
  name: string;
  /** Lower-case extensions with their dot. */
  extensions: string[];
  languageId: (ext: string) => string;
  /** The program and arguments, or why it cannot run here. */
  resolve: (root: string) => { command: string; args: string[]; initializationOptions?: unknown } | { reason: string };
  origin: "rt" | "system" | "configuration";
}

const TS_IDS: Record<string, string> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
};

function fromPackage(specifier: string): string {
  return createRequire(import.meta.url).resolve(specifier);
}

const BUILTIN: ServerSpec[] = [
  {
    name: "typescript",
    extensions: Object.keys(TS_IDS),
    languageId: (ext) => TS_IDS[ext] ?? "typescript",
    origin: "rt",
    resolve: () => ({
      command: process.execPath,
      args: [fromPackage("typescript-language-server/lib/cli.mjs"), "--stdio"],
      // useSyntaxServer "never": otherwise requests made while the project loads get syntax-only answers (an import instead of the function it imports).
      initializationOptions: {
        tsserver: { path: fromPackage("typescript/lib/tsserver.js"), useSyntaxServer: "never" },
        hostInfo: "rt",
      },
    }),
  },
  {
    name: "python",
    extensions: [".py", ".pyi"],
    languageId: () => "python",
    origin: "rt",
    resolve: () => ({ command: process.execPath, args: [fromPackage("pyright/langserver.index.js"), "--stdio"] }),
  },
  systemServer("go", "gopls", [".go"], () => "go", []),
  systemServer("rust", "rust-analyzer", [".rs"], () => "rust", []),
  systemServer(
    "c",
    "clangd",
    [".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"],
    (ext) => (ext === ".c" ? "c" : "cpp"),
    [],
  ),
];

function systemServer(
  name: string,
  program: string,
  extensions: string[],
  languageId: (ext: string) => string,
  args: string[],
): ServerSpec {
  return {
    name,
    extensions,
    languageId,
    origin: "system",
    resolve(root) {
      const found = findSystemProgram(program, {
        root,
        purpose: `the ${name} language server`,
        searchPath: serverPath(root),
      });
      return found.path
        ? { command: found.path, args }
        : {
            reason: `${program} is not installed (${found.reason}); install it, or configure a server for ${extensions.join(" ")} in lsp.servers`,
          };
    },
  };
}

/**
 * The directories of the servers rt bundles (TypeScript's, pyright's): their library files
 * (lib.dom.d.ts, typeshed) are what a definition of a built-in names, outside any workspace,
 * and hold nothing of the user's.
 */
export function bundledServerDirs(): string[] {
  const out: string[] = [];
  for (const pkg of ["typescript", "pyright", "typescript-language-server"]) {
    try {
      out.push(fs.realpathSync(path.dirname(fromPackage(`${pkg}/package.json`))));
    } catch {
      /* not installed */
    }
  }
  return out;
}

/** The configured servers, then rt's own: the first that serves an extension wins. */
export function serverSpecs(config: RtConfig, root: string): ServerSpec[] {
  const configured: ServerSpec[] = Object.entries(config.lsp?.servers ?? {}).map(([name, s]) => ({
    name,
    extensions: s.extensions.map((e) => e.toLowerCase()),
    languageId: (ext) => s.language_id ?? ext.slice(1),
    origin: "configuration",
    resolve() {
      if (path.isAbsolute(s.command))
        return { command: s.command, args: s.args ?? [], initializationOptions: s.initialization_options };
      const found = findSystemProgram(s.command, {
        root,
        purpose: `the ${name} language server`,
        searchPath: serverPath(root),
      });
      return found.path
        ? { command: found.path, args: s.args ?? [], initializationOptions: s.initialization_options }
        : { reason: `${s.command} (lsp.servers.${name}.command) was not found: ${found.reason}` };
    },
  }));
  return [...configured, ...BUILTIN];
}

export function specFor(specs: ServerSpec[], file: string): ServerSpec | undefined {
  const ext = path.extname(file).toLowerCase();
  return specs.find((s) => s.extensions.includes(ext));
}

/**
 * PATH for a server: the one rt started with, without relative entries or
 * directories inside the workspace (pyright runs `python` from PATH to find
 * its search paths; a repository's `bin/python` must not be it).
 */
export function serverPath(root: string): string {
  const realRoot = root.endsWith(path.sep) ? root : root + path.sep;
  return (STARTUP_PATH ?? "/usr/local/bin:/usr/bin:/bin")
    .split(path.delimiter)
    .filter((d) => d && path.isAbsolute(d) && d !== root && !d.startsWith(realRoot))
    .join(path.delimiter);
}
