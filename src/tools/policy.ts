// The policy sits between every face and the registry: it finds the tool,
// validates arguments against its schema, applies the profile and kill
// switches, runs the handler and turns every failure into a ToolResult.
import type { z } from "zod";
import type { Workspace } from "../workspace/workspace.js";
import { findTool, jsonSchemaOf, toolNames } from "./registry.js";
import { ToolError, type Tool, type ToolProgress, type ToolResult } from "./types.js";

export interface CallOptions {
  signal?: AbortSignal;
  /** Progress of a long call (bash output as it comes, grep's matches so far). */
  onProgress?: (progress: ToolProgress) => void;
}

function usageError(error: string, metadata: Record<string, unknown> = {}): ToolResult {
  return { success: false, output: "", error, error_type: "usage", ...metadata };
}

function denied(error: string): ToolResult {
  return { success: false, output: "", error, error_type: "denied" };
}

/** "offset: expected number, received string" for each problem zod found. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where = i.path.length ? i.path.join(".") : "(arguments)";
      return `${where}: ${i.message}`;
    })
    .join("; ");
}

/** One problem with a call's arguments, for faces that word it their own way (the CLI names its flags). */
export interface ArgumentIssue {
  /** The argument, as the tool names it ("context", "path"...); empty for the arguments as a whole. */
  path: Array<string | number>;
  code: string;
  message: string;
  minimum?: number;
  maximum?: number;
  expected?: string;
  values?: unknown[];
  keys?: string[];
}

function argumentIssues(error: z.ZodError): ArgumentIssue[] {
  return error.issues.map((i) => {
    const extra = i as unknown as Record<string, unknown>;
    const out: ArgumentIssue = { path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)), code: i.code, message: i.message };
    if (typeof extra.minimum === "number" || typeof extra.minimum === "bigint") out.minimum = Number(extra.minimum);
    if (typeof extra.maximum === "number" || typeof extra.maximum === "bigint") out.maximum = Number(extra.maximum);
    if (typeof extra.expected === "string") out.expected = extra.expected;
    if (Array.isArray(extra.values)) out.values = extra.values;
    if (Array.isArray(extra.keys)) out.keys = extra.keys as string[];
    return out;
  });
}

/** Why a write is refused in this workspace, or undefined when it may run. */
export function writeRefusal(workspace: Workspace, tool: Tool, args: Record<string, unknown>): string | undefined {
  if (tool.readOnly) return undefined;
  const env = workspace.env;
  const disabled = (v: string | undefined) => v !== undefined && /^(0|off|false|no)$/i.test(v.trim());
  if (tool.editing && (disabled(env.RT_ENABLE_SWE) || disabled(env.RAGIX_ENABLE_SWE))) {
    const name = disabled(env.RT_ENABLE_SWE) ? "RT_ENABLE_SWE" : "RAGIX_ENABLE_SWE";
    return `${tool.name} is disabled: ${name}=${env[name]} turns off rt's editing tools; unset it to edit`;
  }
  if (tool.enforcesReadOnly) return undefined;
  if (workspace.profile === "safe-read-only" && args.dry_run !== true) {
    // Only a tool that takes dry_run can be told to pass it (undo_edit cannot).
    const canPreview = Object.hasOwn((jsonSchemaOf(tool).properties ?? {}) as object, "dry_run");
    const instead = canPreview ? "Pass dry_run: true (--dry-run) to see the patch without applying it, or use the dev profile" : `${tool.name} has no dry run; use the dev profile to run it`;
    return `${tool.name} changes files, and the profile is safe-read-only: nothing may be modified. ${instead}`;
  }
  return undefined;
}

export async function callTool(workspace: Workspace, name: string, args: unknown, opts: CallOptions = {}): Promise<ToolResult> {
  const tool = findTool(name);
  if (!tool) {
    return usageError(`unknown tool "${name}"; available tools: ${toolNames().join(", ")}`);
  }
  // jitless: zod would otherwise compile a parser for each object schema
  // (new Function) on its first parse, which costs a one-shot command more
  // than it saves; validating a tool's arguments is never the slow part.
  const parsed = tool.schema.safeParse(args ?? {}, { jitless: true });
  if (!parsed.success) {
    return usageError(`invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}\nschema: ${JSON.stringify(jsonSchemaOf(tool))}`, {
      tool: tool.name,
      issues: argumentIssues(parsed.error),
    });
  }
  const refusal = writeRefusal(workspace, tool, parsed.data as Record<string, unknown>);
  if (refusal) return denied(refusal);
  try {
    return await tool.handler(parsed.data, { workspace, signal: opts.signal, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
  } catch (e) {
    if (e instanceof ToolError) return { success: false, output: "", error: e.message, error_type: "tool", ...e.metadata };
    const err = e as NodeJS.ErrnoException;
    const code = err.code ? ` (${err.code})` : "";
    return { success: false, output: "", error: `${tool.name} failed${code}: ${err.message}`, error_type: "tool" };
  }
}
