// Regular expressions written by the model, run with a time budget. JavaScript's
// engine backtracks: a pattern such as (a+)+$ against a long line of a's takes
// exponential time and would block the whole process (every MCP client, the
// agent) for as long. Running the matching inside a vm context with a timeout
// lets V8 interrupt it; the call fails, the process goes on.
import vm from "node:vm";
import { ToolError } from "../base/errors.js";

/**
 * Which of `lines` match `re`, decided in one interruptible run of at most `budgetMs`
 * (a vm call per line would cost a watchdog thread each). Throws a ToolError naming
 * the budget when the matching takes longer.
 */
export function testLines(re: RegExp, lines: string[], budgetMs: number, what: string): boolean[] {
  if (lines.length === 0) return [];
  const context = vm.createContext({ re, lines });
  try {
    return vm.runInContext("lines.map((line) => { re.lastIndex = 0; return re.test(line); })", context, {
      timeout: budgetMs,
    }) as boolean[];
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") {
      throw new ToolError(
        `${what} /${re.source}/ took more than ${budgetMs} ms to match ${lines.length} line${lines.length === 1 ? "" : "s"} and was stopped (nested repetition such as (a+)+ backtracks without end); write a simpler expression`,
      );
    }
    throw e;
  }
}
