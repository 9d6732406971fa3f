// Running a custom tool: its argument vector, run directly (no shell), with
// the arguments as JSON on standard input and as RT_ARG_<NAME> variables, in
// the workspace root, inside the read-only sandbox when the profile or
// --sandbox asks for it (as bash), with bash's timeout, kill and output caps
// (a stream over the cap keeps head and tail, the whole saved under .rt/shell/).
//
// A tool that claims `read_only: true` is called without a question; only the
// user's own tools (in the user's configuration directory) are taken at their
// word. A project's tool or one the model made with tool_create that claims it
// always runs in the read-only sandbox, so the claim holds whatever the
// program does (and is refused where there is no sandbox).
import path from "node:path";
import type { ToolContext, ToolResult } from "../tools/types.js";
import { ToolError } from "../tools/types.js";
import type { Workspace } from "../workspace/workspace.js";
import { sandboxPolicy } from "../shell/mode.js";
import { probeSandbox, type SandboxSpec } from "../shell/sandbox.js";
import { startCommand } from "../shell/runner.js";
import { StreamCapture } from "../shell/capture.js";
import { labelledOutput, statusLine } from "../shell/format.js";
import { safeCommandPath } from "../workspace/commandPath.js";
import { newRunId, spillTarget } from "../tools/bash.js";
import { BASH_MAX_OUTPUT_BYTES } from "../base/limits.js";
import { argEnvName, type CustomToolDefinition } from "./definition.js";

/** The sandbox a custom tool runs in here, or undefined when it runs directly. Throws a denied ToolError when it must be sandboxed and cannot. */
export async function customToolSandbox(
  ws: Workspace,
  force: boolean | string = false,
): Promise<SandboxSpec | undefined> {
  const policy = force
    ? { on: true, why: typeof force === "string" ? force : "tests of a tool always run sandboxed" }
    : sandboxPolicy(ws);
  if (!policy.on) return undefined;
  const probe = await probeSandbox(ws.env, ws.root);
  if (!probe.available) {
    throw new ToolError(
      `custom tools must run in the read-only sandbox (${policy.why}), and it is not available: ${probe.reason} rt never runs them unsandboxed instead.`,
      {
        error_type: "denied",
        sandbox_unavailable: true,
      },
    );
  }
  const allowNet = ws.options.allowNet === true;
  return {
    bwrap: probe.bwrap,
    strategy: probe.strategy,
    root: ws.root,
    cwd: ws.root,
    allowNet,
    features: probe.features,
    fromCache: probe.fromCache,
  };
}

/** The environment of a run: the workspace's, a PATH without repository directories first, and each argument. */
export function customToolEnv(
  ws: Workspace,
  def: CustomToolDefinition,
  args: Record<string, unknown>,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...ws.env,
    PATH: safeCommandPath(ws.env.PATH, ws.root),
    RT_TOOL_NAME: def.name,
    RT_TOOL_DIR: path.dirname(def.file),
    RT_WORKSPACE_ROOT: ws.root,
  };
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined) continue;
    env[argEnvName(k)] = typeof v === "string" ? v : JSON.stringify(v);
  }
  return env;
}

/** Why a tool must run in the read-only sandbox because of its read_only claim, or false when it need not. */
export function claimSandbox(def: CustomToolDefinition): string | false {
  if (!def.read_only || def.origin === "user") return false;
  return def.origin === "session"
    ? "a tool the model made that claims to be read-only runs only in the read-only sandbox"
    : "a project's tool that claims to be read-only runs only in the read-only sandbox";
}

export async function runCustomTool(
  def: CustomToolDefinition,
  args: Record<string, unknown>,
  ctx: ToolContext,
  opts: { timeoutS?: number; sandboxed?: boolean } = {},
): Promise<ToolResult> {
  const ws = ctx.workspace;
  let sandbox: SandboxSpec | undefined;
  try {
    sandbox = await customToolSandbox(ws, opts.sandboxed === true || claimSandbox(def));
  } catch (e) {
    if (e instanceof ToolError)
      return { success: false, output: "", error: e.message, error_type: "tool", ...e.metadata };
    throw e;
  }
  const timeoutS = opts.timeoutS ?? def.timeout;
  const runId = newRunId();
  const stateOff = "the full text was not saved (rt's state directory is off: RT_STATE=off)";
  const captures = {
    stdout: new StreamCapture(BASH_MAX_OUTPUT_BYTES, spillTarget(ws, runId, "stdout"), stateOff),
    stderr: new StreamCapture(BASH_MAX_OUTPUT_BYTES, spillTarget(ws, runId, "stderr"), stateOff),
  };
  const run = startCommand({
    command: "",
    argv: def.command,
    stdin: `${JSON.stringify(args)}\n`,
    cwd: ws.root,
    env: customToolEnv(ws, def, args),
    sandbox,
    timeoutMs: timeoutS * 1000,
    signal: ctx.signal,
    onData: (stream, chunk) => {
      captures[stream].push(chunk);
      ctx.onProgress?.({ kind: "output", stream, data: chunk });
    },
  });
  const exit = await run.done;
  const stdout = captures.stdout.finish();
  const stderr = captures.stderr.finish();
  const status = statusLine(exit, timeoutS * 1000);
  const saved = [stdout.savedPath, stderr.savedPath].filter((p): p is string => p !== undefined);
  const metadata = {
    tool: def.name,
    exit_code: exit.exitCode,
    duration_ms: exit.durationMs,
    timed_out: exit.timedOut,
    truncated: stdout.truncated || stderr.truncated,
    sandboxed: sandbox !== undefined,
    stdout: stdout.text,
    stderr: stderr.text,
    ...(saved.length ? { saved_output: saved } : {}),
  };
  // A tool that printed only to stdout and succeeded reads as its output alone.
  const output =
    exit.exitCode === 0 && stderr.text === ""
      ? stdout.text
      : `${status}${sandbox ? " · sandboxed" : ""}\n${labelledOutput(stdout.text, stderr.text)}`;
  if (exit.exitCode === 0 && !exit.timedOut) return { success: true, output, ...metadata };
  const last = stderr.text.trimEnd().split("\n").pop() ?? "";
  const error = exit.timedOut
    ? `${def.name} ${status}`
    : exit.spawnError
      ? `${def.name} ${status} (command: ${JSON.stringify(def.command)}, defined in ${def.file})`
      : exit.exitCode === null
        ? `${def.name}: ${status}`
        : `${def.name} failed with exit code ${exit.exitCode}${last ? `: ${last.slice(0, 300)}` : ""}`;
  return { success: false, output, error, error_type: "tool", ...metadata };
}

export interface TestOutcome {
  index: number;
  passed: boolean;
  /** What was expected and what happened, when it failed. */
  message: string;
  exit_code: number | null;
  output: string;
}

/**
 * Runs a definition's tests in the read-only sandbox, whatever the profile (a
 * test must not change anything; a tool that writes fails its test there),
 * each checked for its exit code and the text its output must contain.
 */
export async function runDefinitionTests(
  def: CustomToolDefinition,
  ws: Workspace,
  opts: { signal?: AbortSignal } = {},
): Promise<TestOutcome[]> {
  const out: TestOutcome[] = [];
  for (const [index, t] of def.tests.entries()) {
    const result = await runCustomTool(
      def,
      structuredClone(t.args),
      { workspace: ws, signal: opts.signal },
      { sandboxed: true },
    );
    const exit = (result.exit_code as number | null | undefined) ?? null;
    const text = `${String(result.stdout ?? "")}${String(result.stderr ?? "")}`;
    const problems: string[] = [];
    if (result.sandbox_unavailable) problems.push(result.error ?? "the sandbox is not available");
    else {
      if (exit !== t.exit_code)
        problems.push(`exit code ${exit === null ? `none (${result.error})` : exit}, expected ${t.exit_code}`);
      if (t.output_contains !== undefined && !text.includes(t.output_contains))
        problems.push(`output does not contain ${JSON.stringify(t.output_contains)}`);
    }
    out.push({
      index,
      passed: problems.length === 0,
      message: problems.join("; "),
      exit_code: exit,
      output: text.length > 2000 ? `${text.slice(0, 2000)}…` : text,
    });
  }
  return out;
}
