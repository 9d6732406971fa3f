// `rt call`: the JSON face. One call reads its arguments from --args or stdin
// and prints the ToolResult as one JSON object (exit 0 success, 1 tool error,
// 2 usage error). --batch reads JSON Lines {"tool", "args"} and prints one
// result line per input line, in order, in this one process, so workspace
// state (line IDs, indexes, view windows) is loaded once and kept in memory.
import readline from "node:readline";
import type { Workspace } from "../../workspace/workspace.js";
import { callTool } from "../../tools/policy.js";
import type { ToolResult } from "../../tools/types.js";
import type { Io } from "../../ui/io.js";

function usage(error: string): ToolResult {
  return { success: false, output: "", error, error_type: "usage" };
}

function parseArgsJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return { ok: false, error: 'arguments must be a JSON object, e.g. {"path": "src/app.ts"}' };
    }
    return { ok: true, value };
  } catch (e) {
    return { ok: false, error: `arguments are not valid JSON: ${(e as Error).message}` };
  }
}

export async function runCall(
  workspace: Workspace,
  positionals: string[],
  values: Record<string, unknown>,
  io: Io,
  readStdin: () => Promise<string | null>,
): Promise<number> {
  if (values.batch) {
    if (positionals.length) {
      io.stdout(`${JSON.stringify(usage("rt call --batch takes no tool name: each input line names its tool"))}\n`);
      return 2;
    }
    return runBatch(workspace, io);
  }
  if (positionals.length !== 1) {
    const r = usage(
      positionals.length
        ? `rt call takes one tool name, got ${positionals.length}`
        : "rt call needs a tool name: rt call TOOL [--args JSON]",
    );
    io.stdout(`${JSON.stringify(r)}\n`);
    return 2;
  }
  const raw = typeof values.args === "string" ? values.args : ((await readStdin()) ?? "");
  const args = parseArgsJson(raw);
  const result = args.ok ? await callTool(workspace, positionals[0], args.value) : usage(args.error);
  io.stdout(`${JSON.stringify(result)}\n`);
  return result.success ? 0 : result.error_type === "usage" ? 2 : 1;
}

async function runBatch(workspace: Workspace, io: Io): Promise<number> {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (line.trim() === "") continue;
    let result: ToolResult;
    let req: unknown;
    try {
      req = JSON.parse(line);
    } catch (e) {
      req = undefined;
      result = usage(`line ${n}: not valid JSON: ${(e as Error).message}`);
    }
    if (req !== undefined) {
      const r = req as { tool?: unknown; args?: unknown };
      if (r === null || typeof r !== "object" || typeof r.tool !== "string") {
        result = usage(`line ${n}: expected {"tool": NAME, "args": {...}}`);
      } else {
        result = await callTool(workspace, r.tool, r.args ?? {});
      }
    }
    io.stdout(`${JSON.stringify(result!)}\n`);
  }
  return 0;
}
