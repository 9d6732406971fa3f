// A tool's argument schema as JSON Schema (for MCP, the agent and error messages).
import * as z from "zod";
import type { Tool } from "./types.js";

const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The tool's argument schema as JSON Schema (for MCP, the agent and error messages): converted once per tool, a fresh copy each call. */
export function jsonSchemaOf(tool: Tool): Record<string, unknown> {
  if (tool.inputJsonSchema) return structuredClone(tool.inputJsonSchema);
  let schema = jsonSchemas.get(tool.schema);
  if (!schema) {
    schema = z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>;
    delete schema.$schema;
    jsonSchemas.set(tool.schema, schema);
  }
  return structuredClone(schema);
}

/** A JSON schema without zod's ±2^53-1 bounds on integers: they say nothing to a model or a client and cost every request bytes. */
export function withoutSafeBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutSafeBounds);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if ((k === "maximum" && v === Number.MAX_SAFE_INTEGER) || (k === "minimum" && v === Number.MIN_SAFE_INTEGER))
      continue;
    out[k] = withoutSafeBounds(v);
  }
  return out;
}
