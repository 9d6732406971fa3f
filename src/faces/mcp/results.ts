// A ToolResult as MCP content. The model reads the text: the tool's output, or
// on failure the same message the CLI prints after "rt TOOL: " (with any output
// the tool produced first, e.g. a failed command's). Failures are tool results
// with isError: true, never JSON-RPC errors, so the model sees them and can act.
// The rest of the ToolResult (error_type, diff, line counts...) travels in _meta
// for programs, as `rt call` prints it; clients do not show _meta to the model.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResult } from "../../tools/types.js";

/** The _meta key holding the ToolResult's fields other than output and error. */
export const RESULT_META_KEY = "rt/result";

export function toCallToolResult(result: ToolResult): CallToolResult {
  const { output, error, ...rest } = result;
  const text = result.success ? output : [output, error ?? "failed"].filter((s) => s !== "").join("\n");
  return {
    content: [{ type: "text", text }],
    isError: !result.success,
    _meta: { [RESULT_META_KEY]: rest },
  };
}

/** A failure found by the MCP face itself (unusable client root, path under a refused root). */
export function toolErrorResult(message: string): CallToolResult {
  return toCallToolResult({ success: false, output: "", error: message, error_type: "denied" });
}
