// Structured results for the tools whose results have structure: grep's
// matches (or files, or counts; count is every match, shown or not), read's line
// IDs (line_ids[i] is line start_line + i), sql_query's rows (cells in column
// order; more: the query has more rows than its limit; truncated: something was
// left out). The schemas carry no descriptions: tools/list is sent with every
// request a client makes, so its bytes count. Each tool's outputSchema (listed
// in tools/list) and the structuredContent built from its ToolResult live side by
// side so they cannot drift apart; every value is capped (a line of text, a
// cell, the whole object), so nothing the client receives is unbounded.
import type { ToolResult } from "../../tools/types.js";
import { GREP_MAX_LINE_CHARS, MCP_STRUCTURED_MAX_BYTES, SQL_MAX_CELL_CHARS } from "../../base/limits.js";

type JsonSchema = { type: "object"; [key: string]: unknown };

const str = { type: "string" };
const int = { type: "integer" };
const bool = { type: "boolean" };
const truncated = bool;

const GREP_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    matches: {
      type: "array",
      items: {
        type: "object",
        properties: { file: str, line: int, text: str, line_id: str },
        required: ["file", "line", "text"],
      },
    },
    files: { type: "array", items: str },
    counts: {
      type: "array",
      items: { type: "object", properties: { file: str, count: int }, required: ["file", "count"] },
    },
    count: int,
    truncated,
  },
  required: ["count", "truncated"],
};

const READ_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    path: str,
    start_line: int,
    end_line: int,
    total_lines: int,
    truncated,
    line_ids: { type: "array", items: str },
  },
  required: ["path", "total_lines", "truncated"],
};

const SQL_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    columns: { type: "array", items: str },
    rows: { type: "array", items: { type: "array" } },
    more: bool,
    truncated,
  },
  required: ["columns", "rows", "more", "truncated"],
};

/** Canonical tool name → its output schema. */
export const OUTPUT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  grep: GREP_SCHEMA,
  grep_file: GREP_SCHEMA,
  read: READ_SCHEMA,
  sql_query: SQL_SCHEMA,
};

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [cut: ${text.length - max} more characters]`;
}

function cell(v: unknown): unknown {
  return typeof v === "string" ? cut(v, SQL_MAX_CELL_CHARS * 5) : v;
}

/**
 * Keeps the first items of `list` that fit in what remains of the budget
 * (sizes as JSON); returns them and whether any were left out.
 */
function fitting<T>(list: readonly T[], budget: number): { items: T[]; cut: boolean } {
  const items: T[] = [];
  let used = 0;
  for (const x of list) {
    const size = JSON.stringify(x).length + 1;
    if (used + size > budget) return { items, cut: true };
    items.push(x);
    used += size;
  }
  return { items, cut: false };
}

/** The structuredContent of a successful call of `tool` (canonical name), or undefined when the tool has none. */
export function structuredContent(tool: string, r: ToolResult): Record<string, unknown> | undefined {
  const budget = MCP_STRUCTURED_MAX_BYTES;
  switch (tool) {
    case "grep":
    case "grep_file": {
      const out: Record<string, unknown> = {
        count: typeof r.count === "number" ? r.count : 0,
        truncated: r.truncated === true,
      };
      if (Array.isArray(r.matches)) {
        const all = (r.matches as Array<{ file: string; line: number; content: string; line_id?: string }>).map(
          (m) => ({
            file: m.file,
            line: m.line,
            text: cut(m.content, GREP_MAX_LINE_CHARS),
            ...(m.line_id ? { line_id: m.line_id } : {}),
          }),
        );
        const f = fitting(all, budget);
        out.matches = f.items;
        if (f.cut) out.truncated = true;
      }
      if (Array.isArray(r.files)) {
        const f = fitting(r.files as string[], budget);
        out.files = f.items;
        if (f.cut) out.truncated = true;
      }
      if (Array.isArray(r.counts)) {
        const f = fitting(r.counts as Array<{ file: string; count: number }>, budget);
        out.counts = f.items;
        if (f.cut) out.truncated = true;
      }
      return out;
    }
    case "read": {
      if (typeof r.path !== "string") return undefined;
      const start = typeof r.start_line === "number" ? r.start_line : undefined;
      const count = typeof r.line_count === "number" ? r.line_count : 0;
      const out: Record<string, unknown> = {
        path: r.path,
        total_lines: typeof r.total_lines === "number" ? r.total_lines : 0,
        truncated: r.truncated === true,
      };
      if (start !== undefined && count > 0) Object.assign(out, { start_line: start, end_line: start + count - 1 });
      if (Array.isArray(r.line_ids)) out.line_ids = r.line_ids;
      return out;
    }
    case "sql_query": {
      if (!Array.isArray(r.columns) || !Array.isArray(r.rows)) return undefined;
      const rows = (r.rows as unknown[][]).map((row) => row.map(cell));
      const f = fitting(rows, budget);
      return { columns: r.columns, rows: f.items, more: r.more === true, truncated: f.cut || r.more === true };
    }
    default:
      return undefined;
  }
}
