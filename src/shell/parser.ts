// The shell parser behind the structural check: tree-sitter-bash through the
// process's one tree-sitter loader (src/parsers/treeSitter.ts), which loads the
// WebAssembly runtime and the grammar on first use only, so nothing here costs
// anything until a shell command is actually checked.
import v8 from "node:v8";
import type { ParseFn, ShellParse } from "./check.js";

/**
 * V8's budget before it recompiles a hot WebAssembly function with its
 * optimizing compiler (default about 1.8 million). Parsing one shell command
 * exhausts the default for tree-sitter-bash's lexer, and optimizing that huge
 * function takes 0.5 to 1 s of CPU on a background thread. Node waits for
 * background compilation whenever its event loop runs empty, and before the
 * process exits: that wait was most of a first sandboxed command's 470 ms and
 * of `rt bash`'s exit. The lexer compiled by the baseline compiler parses a
 * command in well under a millisecond, so rt raises the budget (for modules
 * instantiated from now on) before it loads the grammar.
 */
const WASM_TIERING_BUDGET = 1_000_000_000;
let budgetRaised = false;

function raiseWasmTieringBudget(): void {
  if (budgetRaised) return;
  budgetRaised = true;
  v8.setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
}

let pending: Promise<ParseFn> | undefined;

/**
 * A synchronous parse function for bash source (loaded once per process).
 * The structural check needs it synchronous: it re-parses `bash -c '...'`,
 * `eval` and `trap` strings while walking a tree.
 */
export function loadBashParser(): Promise<ParseFn> {
  if (!pending) {
    pending = (async () => {
      raiseWasmTieringBudget();
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
