// The shell parser behind the structural check: tree-sitter-bash through the
// process's one tree-sitter loader (src/parsers/treeSitter.ts), which loads the
// WebAssembly runtime and the grammar on first use only, so nothing here costs
// anything until a shell command is actually checked.
import type { ParseFn, ShellParse } from "./check.js";

let pending: Promise<ParseFn> | undefined;

/**
 * A synchronous parse function for bash source (loaded once per process).
 * The structural check needs it synchronous: it re-parses `bash -c '...'`,
 * `eval` and `trap` strings while walking a tree.
 */
export function loadBashParser(): Promise<ParseFn> {
  if (!pending) {
    pending = (async () => {
      const { loadLanguage } = await import("../parsers/treeSitter.js");
      const language = await loadLanguage("bash");
      const { Parser } = await import("web-tree-sitter");
      const parser = new Parser();
      parser.setLanguage(language);
      return (source: string): ShellParse => {
        parser.reset();
        const tree = parser.parse(source);
        if (!tree) throw new Error("tree-sitter returned no tree for the command");
        return { root: tree.rootNode, dispose: () => tree.delete() };
      };
    })();
    pending.catch(() => {
      pending = undefined;
    });
  }
  return pending;
}
