// The policy sits between every face and the registry: it finds the tool,
// validates arguments against its schema, applies the profile and kill
// switches, runs the handler and turns every failure into a ToolResult.
//
// In two steps, so that a face that asks the user (the agent's approvals) asks
// about a call that can run: prepareCall finds the tool once and checks the
// call, and either refuses it (a ToolResult the face hands back as the
// answer) or returns a PreparedCall; runPreparedCall runs exactly that call,
// without finding or checking anything again. callTool is both steps at once.
import type { z } from "zod";
import type { Workspace } from "../workspace/workspace.js";
import { jsonSchemaOf } from "./jsonSchema.js";
import {
  ToolError,
  type Tool,
  type ToolContext,
  type ToolProgress,
  type ToolResult,
  type ToolLookup,
} from "./types.js";
import { lspActive } from "../lsp/active.js";
import type { EditCheck } from "../lsp/editDiagnostics.js";

export type { EditCheck } from "../lsp/editDiagnostics.js";

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Where to find the tool: the whole registry by default (src/tools/registry.ts, which loads every tool's
   * module); a one-shot CLI command passes its one tool (src/faces/cli/main.ts).
   */
  tools?: ToolLookup;
  /** Progress of a long call (bash output as it comes, grep's matches so far). */
  onProgress?: (progress: ToolProgress) => void;
  /**
   * After an edit, add the errors it introduced when a language server for the
   * file runs (src/lsp/editDiagnostics.ts): the face's default, which
   * `lsp.edit_diagnostics` in the configuration overrides. The agent turns it on.
   */
  editDiagnostics?: boolean;
  /**
   * With edit diagnostics on, an editing tool answers as soon as the file is written instead of waiting
   * for the language server: the comparison of the file's errors before and after the edit runs in the
   * background (in order per file). This function is given what starts that check (the agent starts it
   * once its next model request is on its way, and delivers what it finds later). Without it, the result
   * carries the errors (the CLI, MCP, ACP, the library).
   */
  editCheckLater?: (start: () => Promise<EditCheck | undefined>) => void;
  /** The characters of output the face passes on (ToolContext.outputBudget). */
  outputBudget?: number;
  /** A model the tool may ask (ToolContext.askModel): the agent's. */
  askModel?: ToolContext["askModel"];
  /** Whether images go back to a model (ToolContext.imageInput): the agent's model, the MCP face. */
  imageInput?: ToolContext["imageInput"];
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
    const out: ArgumentIssue = {
      path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
      code: i.code,
      message: i.message,
    };
    if (typeof extra.minimum === "number" || typeof extra.minimum === "bigint") out.minimum = Number(extra.minimum);
    if (typeof extra.maximum === "number" || typeof extra.maximum === "bigint") out.maximum = Number(extra.maximum);
    if (typeof extra.expected === "string") out.expected = extra.expected;
    if (Array.isArray(extra.values)) out.values = extra.values;
    if (Array.isArray(extra.keys)) out.keys = extra.keys as string[];
    return out;
  });
}

/**
 * Why the kill switch turns `tool` off, or undefined when it does not:
 * RT_ENABLE_SWE=0 (or RAGIX_ENABLE_SWE=0) disables every SWE tool regardless
 * of profile, which is its navigation,
 * search and line-editing tools and every tool that edits files. Other tools
 * (read, ls, bash, SQL...) stay.
 */
export function switchedOff(workspace: Workspace, tool: Tool): string | undefined {
  if (!tool.editing && !tool.swe) return undefined;
  const env = workspace.env;
  const disabled = (v: string | undefined) => v !== undefined && /^(0|off|false|no)$/i.test(v.trim());
  if (!disabled(env.RT_ENABLE_SWE) && !disabled(env.RAGIX_ENABLE_SWE)) return undefined;
  const name = disabled(env.RT_ENABLE_SWE) ? "RT_ENABLE_SWE" : "RAGIX_ENABLE_SWE";
  return `${tool.name} is disabled: ${name}=${env[name]} turns off rt's SWE tools (open, scroll, find, grep, grep_file and the editing tools); unset it to use them. read, ls and bash still work.`;
}

/** Why a call of `tool` is refused in this workspace (the kill switch, the profile), or undefined when it may run. */
export function writeRefusal(workspace: Workspace, tool: Tool, args: Record<string, unknown>): string | undefined {
  const off = switchedOff(workspace, tool);
  if (off) return off;
  if (tool.readOnly) return undefined;
  if (tool.enforcesReadOnly) return undefined;
  if (workspace.profile === "safe-read-only" && args.dry_run !== true) {
    // Only a tool that takes dry_run can be told to pass it (undo_edit cannot).
    const canPreview = Object.hasOwn((jsonSchemaOf(tool).properties ?? {}) as object, "dry_run");
    const instead = canPreview
      ? "Pass dry_run: true (--dry-run) to see the patch without applying it, or use the dev profile"
      : `${tool.name} has no dry run; use the dev profile to run it`;
    return `${tool.name} changes files, and the profile is safe-read-only: nothing may be modified. ${instead}`;
  }
  return undefined;
}

/**
 * How a face may offer `tool` to a caller in this workspace, as the policy will
 * treat its calls: "full" (it runs as it is), "preview" (a writing tool the
 * profile lets run only with dry_run: true, in safe-read-only) or "refused"
 * (the kill switch, or a writing tool with no dry run in safe-read-only). The
 * MCP face lists previews as previews; the agent offers only "full" tools.
 */
export function offering(workspace: Workspace, tool: Tool): "full" | "preview" | "refused" {
  // A tool that cannot work here (web_search without a backend) is not offered; a call still says why.
  if (tool.unavailable?.(workspace) !== undefined) return "refused";
  if (writeRefusal(workspace, tool, {}) === undefined) return "full";
  const hasDryRun = Object.hasOwn((jsonSchemaOf(tool).properties ?? {}) as object, "dry_run");
  if (hasDryRun && writeRefusal(workspace, tool, { dry_run: true }) === undefined) return "preview";
  return "refused";
}

export type { ToolLookup } from "./types.js";

/**
 * A call the policy has checked: its tool (found once), its arguments as the
 * handler takes them (aliases turned into canonical names, defaults filled in)
 * and the workspace whose profile allowed it. Made only by prepareCall.
 */
export interface PreparedCall {
  readonly tool: Tool;
  readonly args: Readonly<Record<string, unknown>>;
  readonly workspace: Workspace;
}

/** What prepareCall made of a call: a prepared call, or the refusal to give back (with the tool, when it was found). */
export type Preparation = { ok: true; call: PreparedCall } | { ok: false; tool?: Tool; refusal: ToolResult };

/** The calls prepareCall made: runPreparedCall runs nothing else (a hand-made object skips no check). */
const preparedCalls = new WeakSet<PreparedCall>();

/**
 * Finds the tool and checks the call: its arguments against the tool's schema
 * (argument aliases included), then the profile and kill switches. Nothing
 * runs and nobody is asked; a refusal names what was wrong and what is valid.
 */
export function prepareCall(workspace: Workspace, name: string, args: unknown, tools: ToolLookup): Preparation {
  const tool = tools.find(name);
  if (!tool) {
    return { ok: false, refusal: usageError(`unknown tool "${name}"; available tools: ${tools.names().join(", ")}`) };
  }
  // jitless: zod would otherwise compile a parser for each object schema
  // (new Function) on its first parse, which costs a one-shot command more
  // than it saves; validating a tool's arguments is never the slow part.
  const parsed = tool.schema.safeParse(args ?? {}, { jitless: true });
  if (!parsed.success) {
    return {
      ok: false,
      tool,
      refusal: usageError(
        `invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}\nschema: ${JSON.stringify(jsonSchemaOf(tool))}`,
        {
          tool: tool.name,
          issues: argumentIssues(parsed.error),
        },
      ),
    };
  }
  const checked = parsed.data as Record<string, unknown>;
  const refusal = writeRefusal(workspace, tool, checked);
  if (refusal) return { ok: false, tool, refusal: denied(refusal) };
  const call: PreparedCall = Object.freeze({ tool, args: checked, workspace });
  preparedCalls.add(call);
  return { ok: true, call };
}

/** Whether edit diagnostics are on for this workspace: `lsp.edit_diagnostics`, else the face's default. */
async function editDiagnosticsOn(workspace: Workspace, faceDefault: boolean): Promise<boolean> {
  try {
    const { loadConfigDetailed } = await import("../base/config.js");
    return loadConfigDetailed(workspace, { notice: false }).config.lsp?.edit_diagnostics ?? faceDefault;
  } catch {
    return false;
  }
}

/**
 * Does ahead, in the background, what the first edit of `path` would do before writing (the
 * agent calls it for a file the model read, while the model thinks): the file's parse for the
 * syntax check and, when edit diagnostics are on (as runPreparedCall decides), its language
 * server started and its errors for the current text taken (the baseline of the edit's check,
 * queued with the file's checks), so that neither the edit nor its check waits for them. Never throws.
 */
export async function warmEdit(workspace: Workspace, path: string, opts: { editDiagnostics?: boolean } = {}) {
  try {
    const { warmEditOf } = await import("../workspace/applyEdit.js");
    await warmEditOf(workspace, path);
    if (lspActive() || (await editDiagnosticsOn(workspace, opts.editDiagnostics === true))) {
      const hook = await import("../lsp/editDiagnostics.js");
      await hook.warm(workspace, path, opts.editDiagnostics === true);
    }
  } catch {
    // Warming is an optimisation: the edit itself says what is wrong.
  }
}

/** Runs a call prepareCall accepted; every failure of the handler becomes a ToolResult. */
export async function runPreparedCall(call: PreparedCall, opts: CallOptions = {}): Promise<ToolResult> {
  if (!preparedCalls.has(call)) throw new Error("runPreparedCall takes only a call returned by prepareCall");
  const { tool, workspace } = call;
  try {
    // Edit diagnostics: once a language server ran in this process, or when they are on (the face's default
    // or lsp.edit_diagnostics), which starts the file's server on its first edit.
    const hook =
      tool.editing && (lspActive() || (await editDiagnosticsOn(workspace, opts.editDiagnostics === true)))
        ? await import("../lsp/editDiagnostics.js")
        : undefined;
    const faceDefault = opts.editDiagnostics === true;
    const later = hook && opts.editCheckLater ? hook.textBefore(workspace, call.args.path, faceDefault) : undefined;
    const baseline =
      hook && !opts.editCheckLater ? await hook.before(workspace, call.args.path, faceDefault) : undefined;
    const result = await tool.handler(call.args, {
      workspace,
      signal: opts.signal,
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      ...(opts.askModel ? { askModel: opts.askModel } : {}),
      ...(opts.imageInput ? { imageInput: opts.imageInput } : {}),
      ...(opts.outputBudget !== undefined ? { outputBudget: opts.outputBudget } : {}),
    });
    if (hook && later && result.success && result.changed === true)
      opts.editCheckLater?.(hook.checkLater(workspace, later));
    return hook && baseline ? await hook.after(workspace, baseline, result) : result;
  } catch (e) {
    if (e instanceof ToolError)
      return { success: false, output: "", error: e.message, error_type: "tool", ...e.metadata };
    const err = e as NodeJS.ErrnoException;
    const code = err.code ? ` (${err.code})` : "";
    return { success: false, output: "", error: `${tool.name} failed${code}: ${err.message}`, error_type: "tool" };
  }
}

/** Finds, checks and runs a call (prepareCall, then runPreparedCall). */
export async function callTool(
  workspace: Workspace,
  name: string,
  args: unknown,
  opts: CallOptions = {},
): Promise<ToolResult> {
  const prepared = prepareCall(workspace, name, args, opts.tools ?? (await import("./registry.js")).REGISTRY_LOOKUP);
  if (!prepared.ok) return prepared.refusal;
  return runPreparedCall(prepared.call, opts);
}
