// `bash`: run a shell command in the workspace.
import crypto from "node:crypto";
import * as z from "zod";
import { defineTool, ok, type ToolResult } from "./types.js";
import type { Workspace } from "../workspace/workspace.js";
import {
  BASH_DEFAULT_TIMEOUT_S,
  BASH_MAX_OUTPUT_BYTES,
  BASH_MAX_TIMEOUT_S,
  SAVED_OUTPUTS_KEEP,
} from "../base/limits.js";
import { planShell, resolveWorkingDir } from "../shell/mode.js";
import { startCommand, type ExitInfo } from "../shell/runner.js";
import { StreamCapture, type SpillTarget } from "../shell/capture.js";
import { labelledOutput, statusLine } from "../shell/format.js";
import { startBackground } from "../shell/background.js";
import { safeCommandPath } from "../workspace/commandPath.js";
import { aliasNote, withArgAliases } from "./shared/argAliases.js";

/** Claude Code's name for background. */
const BASH_ALIASES = { run_in_background: "background" } as const;

/** Where the full text of a cut stream goes: `.rt/shell/<time>-<random>.<stream>.txt`. */
export function spillTarget(ws: Workspace, runId: string, stream: string): SpillTarget | undefined {
  if (!ws.state.enabled) return undefined;
  const name = `${runId}.${stream}.txt`;
  const open = () => {
    if (!ws.state.ensure())
      throw new Error(ws.state.problem ?? "the state directory .rt/ cannot be used (not a directory)");
    ws.state.prune(SAVED_OUTPUTS_KEEP - 1, "shell");
    // Created by the confined writer: O_EXCL|O_NOFOLLOW, no symlink followed on the way.
    const sink = ws.state.create(["shell", name], { mode: 0o600, fsync: false });
    if (!sink) throw new Error("state is off");
    return sink;
  };
  return { shown: `.rt/shell/${name}`, open };
}

export function newRunId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${crypto.randomBytes(3).toString("hex")}`;
}

export const bashTool = defineTool({
  name: "bash",
  aliases: ["shell"],
  brief: `Run a shell command in the workspace; returns its exit code and output. timeout in seconds (default ${BASH_DEFAULT_TIMEOUT_S}).`,
  description: `Run a command with bash -c in the workspace: exit code, duration, stdout and stderr. Killed with everything it started after timeout (${BASH_DEFAULT_TIMEOUT_S} s; at most ${BASH_MAX_TIMEOUT_S}). Over ${BASH_MAX_OUTPUT_BYTES / 1024} KB a stream keeps head and tail (the whole saved under .rt/shell/). background: true returns an id for bash_output and kill_shell. In safe-read-only or with --sandbox: read-only, no network. For files, prefer rt's tools.`,
  schema: () =>
    withArgAliases(
      BASH_ALIASES,
      z
        .object({
          command: z.string().min(1),
          timeout: z
            .number()
            .positive()
            .max(BASH_MAX_TIMEOUT_S)
            .optional()
            .describe(`Seconds (default ${BASH_DEFAULT_TIMEOUT_S})`),
          working_dir: z.string().optional().describe("Inside the root (default: the root)"),
          background: z
            .boolean()
            .optional()
            .describe(`Return an id at once${aliasNote(BASH_ALIASES, "background")}`),
          description: z.string().optional().describe("A few words for the user"),
        })
        .strict(),
    ),
  cli: {
    synopsis: "rt bash [--timeout S] [--cwd DIR] COMMAND | rt bash -- WORD...",
    summary:
      "run a shell command in the workspace (in the current directory when it is inside the root; read-only sandbox in safe-read-only or with --sandbox); exits with its exit code",
    positionals: [{ key: "command", name: "COMMAND", rest: true }],
    options: {
      timeout: {},
      working_dir: {
        flag: "cwd",
        path: "here",
        help: "directory to run in, inside the workspace root (default: the current directory, or the root when outside it)",
      },
    },
  },
  readOnly: false,
  enforcesReadOnly: true,
  async handler(args, { workspace, signal, onProgress }): Promise<ToolResult> {
    const cwd = resolveWorkingDir(workspace, args.working_dir);
    const plan = await planShell(workspace, args.command, cwd);
    // No repository directory (`.`, a relative entry, one under the root) comes first on PATH.
    const env = { ...workspace.env, PATH: safeCommandPath(workspace.env.PATH, workspace.root) };

    if (args.background) {
      const timeoutMs = args.timeout !== undefined ? args.timeout * 1000 : undefined;
      const shell = startBackground({
        command: args.command,
        cwd,
        env,
        sandbox: plan.sandbox,
        how: plan.how,
        timeoutMs,
      });
      return ok(
        `started background shell ${shell.id} (${plan.how}${timeoutMs ? `, killed after ${args.timeout} s` : ""}).\nRead its new output with bash_output {"id": "${shell.id}"}; end it with kill_shell {"id": "${shell.id}"}.`,
        { id: shell.id, background: true, sandboxed: shell.sandboxed },
      );
    }

    const timeoutS = args.timeout ?? BASH_DEFAULT_TIMEOUT_S;
    // An editor that offers its terminals runs the command where the user sees it; a sandboxed
    // command (safe-read-only, --sandbox) never leaves rt's sandbox for it.
    const terminal = workspace.options.terminal;
    if (terminal && !plan.sandbox) {
      const r = await terminal.run({
        command: args.command,
        cwd,
        env: { PATH: env.PATH ?? "" },
        timeoutMs: timeoutS * 1000,
        outputByteLimit: 2 * BASH_MAX_OUTPUT_BYTES,
        ...(signal ? { signal } : {}),
      });
      const exit = {
        exitCode: r.exitCode,
        signal: r.signal as NodeJS.Signals | null,
        timedOut: r.timedOut,
        killed: false,
        durationMs: r.durationMs,
      };
      const status = statusLine(exit, timeoutS * 1000);
      const shown = r.truncated ? `[the beginning was cut by the editor's terminal]\n${r.output}` : r.output;
      const output = `${status} · in the editor's terminal\n${labelledOutput(shown, "")}`;
      const metadata = {
        exit_code: r.exitCode,
        duration_ms: r.durationMs,
        timed_out: r.timedOut,
        truncated: r.truncated,
        sandboxed: false,
        stdout: r.output,
        stderr: "",
      };
      return finished(exit, status, output, metadata, r.output);
    }
    const runId = newRunId();
    const stateOff = "the full text was not saved (rt's state directory is off: RT_STATE=off)";
    const captures = {
      stdout: new StreamCapture(BASH_MAX_OUTPUT_BYTES, spillTarget(workspace, runId, "stdout"), stateOff),
      stderr: new StreamCapture(BASH_MAX_OUTPUT_BYTES, spillTarget(workspace, runId, "stderr"), stateOff),
    };
    const run = startCommand({
      command: args.command,
      cwd,
      env,
      sandbox: plan.sandbox,
      timeoutMs: timeoutS * 1000,
      signal,
      onData: (stream, chunk) => {
        captures[stream].push(chunk);
        onProgress?.({ kind: "output", stream, data: chunk });
      },
    });
    const exit = await run.done;
    const stdout = captures.stdout.finish();
    const stderr = captures.stderr.finish();
    const status = statusLine(exit, timeoutS * 1000);
    const saved = [stdout.savedPath, stderr.savedPath].filter((p): p is string => p !== undefined);
    const output = `${status}${plan.sandbox ? " · sandboxed" : ""}\n${labelledOutput(stdout.text, stderr.text)}`;
    const metadata = {
      exit_code: exit.exitCode,
      duration_ms: exit.durationMs,
      timed_out: exit.timedOut,
      truncated: stdout.truncated || stderr.truncated,
      sandboxed: plan.sandbox !== undefined,
      stdout: stdout.text,
      stderr: stderr.text,
      ...(saved.length ? { saved_output: saved } : {}),
    };
    return finished(exit, status, output, metadata, stderr.text);
  },
});

/**
 * A finished command as the tool's result: success on exit code 0; otherwise
 * why, with the last line of `errorText` (its stderr, or a terminal's output)
 * for a plain failure.
 */
function finished(
  exit: ExitInfo,
  status: string,
  output: string,
  metadata: Record<string, unknown>,
  errorText: string,
): ToolResult {
  if (exit.exitCode === 0 && !exit.timedOut) return ok(output, metadata);
  const last = lastLine(errorText);
  const error = exit.timedOut
    ? `${status}; raise timeout (at most ${BASH_MAX_TIMEOUT_S} s) or run it with background: true`
    : exit.spawnError || exit.exitCode === null
      ? status
      : `command failed with exit code ${exit.exitCode}${last ? `: ${last}` : ""}`;
  return { success: false, output, error, error_type: "tool", ...metadata };
}

function lastLine(text: string): string {
  const lines = text.trimEnd().split("\n");
  const last = lines[lines.length - 1] ?? "";
  return last.length > 300 ? `${last.slice(0, 300)}…` : last;
}
