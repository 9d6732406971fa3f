// A ToolResult as MCP content. The model reads the text: the tool's output, or
// on failure the same message the CLI prints after "rt TOOL: " (with any output
// the tool produced first, e.g. a failed command's). Failures are tool results
// with isError: true, never JSON-RPC errors, so the model sees them and can act.
// Tools with structured results (grep, read, sql_query) add structuredContent
// matching their outputSchema. The rest of the ToolResult (error_type, counts,
// diff...) travels in _meta for programs; clients do not show _meta to the model.
//
// Nothing goes out uncut: the text, the structured content and every field of
// _meta have caps (a client's stdio transport may hang up on one huge message,
// and a model pays for every token). What _meta would repeat from the
// structured content is left out of it.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResult } from "../../tools/types.js";
import {
  MCP_META_ARRAY_MAX,
  MCP_META_MAX_BYTES,
  MCP_META_STRING_MAX_CHARS,
  MCP_TEXT_MAX_CHARS,
} from "../../base/limits.js";
import { structuredContent } from "./structured.js";

/** The _meta key holding the ToolResult's fields other than output and error. */
export const RESULT_META_KEY = "rt/result";

/** Text longer than `max` characters, cut in the middle (the start and the end are what a reader needs). */
export function capText(text: string, max = MCP_TEXT_MAX_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.6);
  const tail = max - head;
  return `${text.slice(0, head)}\n... [${text.length - max} characters cut here by rt mcp: the result is too long for one message; narrow the request] ...\n${text.slice(text.length - tail)}`;
}

/** A value for _meta: long strings and arrays cut, saying so in `cut`. */
function capValue(v: unknown, where: string, cut: string[], depth = 0): unknown {
  if (typeof v === "string") {
    if (v.length <= MCP_META_STRING_MAX_CHARS) return v;
    cut.push(`${where} (${v.length} characters)`);
    return `${v.slice(0, MCP_META_STRING_MAX_CHARS)}…`;
  }
  if (Array.isArray(v)) {
    if (v.length > MCP_META_ARRAY_MAX) cut.push(`${where} (${v.length} items)`);
    return v.slice(0, MCP_META_ARRAY_MAX).map((x, i) => capValue(x, `${where}[${i}]`, cut, depth + 1));
  }
  if (v !== null && typeof v === "object") {
    if (depth > 4) return "…";
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = capValue(x, where ? `${where}.${k}` : k, cut, depth + 1);
    return out;
  }
  return v;
}

/** The ToolResult's metadata for _meta: without what `skip` names, each field capped, the whole under MCP_META_MAX_BYTES. */
export function capMeta(rest: Record<string, unknown>, skip: readonly string[] = []): Record<string, unknown> {
  const cut: string[] = [];
  const meta: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) if (!skip.includes(k)) meta[k] = capValue(v, k, cut);
  // Still too large: the largest fields go, named.
  const omitted: string[] = [];
  const size = () => JSON.stringify(meta).length;
  while (size() > MCP_META_MAX_BYTES) {
    let largest: string | undefined;
    let largestSize = -1;
    for (const [k, v] of Object.entries(meta)) {
      const s = JSON.stringify(v)?.length ?? 0;
      if (s > largestSize) [largest, largestSize] = [k, s];
    }
    if (largest === undefined) break;
    delete meta[largest];
    omitted.push(largest);
  }
  if (cut.length) meta.cut = cut.slice(0, 20);
  if (omitted.length) meta.omitted = omitted;
  return meta;
}

/** `tool` is the canonical name of the tool that produced the result (for its structured content). */
export function toCallToolResult(result: ToolResult, tool?: string): CallToolResult {
  const { output, error, ...rest } = result;
  const text = result.success ? output : [output, error ?? "failed"].filter((s) => s !== "").join("\n");
  const structured = result.success && tool ? structuredContent(tool, result) : undefined;
  // Fields the structured content carries are not repeated in _meta.
  // Images travel as image content, never in _meta.
  const skip = [...(structured ? ["matches", "files", "counts", "line_ids", "rows", "columns"] : []), "images"];
  const images = result.success
    ? (result.images ?? []).map((img) => ({ type: "image" as const, data: img.data_base64, mimeType: img.media_type }))
    : [];
  return {
    content: [{ type: "text", text: capText(text) }, ...images],
    ...(structured ? { structuredContent: structured } : {}),
    isError: !result.success,
    _meta: { [RESULT_META_KEY]: capMeta(rest, skip) },
  };
}

/** A failure found by the MCP face itself (unusable client root, path under a refused root). */
export function toolErrorResult(message: string): CallToolResult {
  return toCallToolResult({ success: false, output: "", error: message, error_type: "denied" });
}
