// Which protection a shell command gets in this workspace, and getting it
// ready: the profile decides (safe-read-only: always the sandbox; dev: only
// with --sandbox; unsafe: never), the sandbox is probed once, and sandboxed
// commands pass the structural check first. Never falls back to running a
// command unsandboxed when the sandbox was asked for.
import fs from "node:fs";
import type { Workspace } from "../workspace/workspace.js";
import { ToolError } from "../base/errors.js";
import { probeSandbox, type SandboxSpec } from "./sandbox.js";

export interface ShellPlan {
  /** Set when the command runs inside bubblewrap. */
  sandbox?: SandboxSpec;
  /** One line saying how the command runs, for results. */
  how: string;
}

/** Whether commands in this workspace run sandboxed, and why. */
export function sandboxPolicy(ws: Workspace): { on: boolean; why: string } {
  if (ws.profile === "safe-read-only") return { on: true, why: "the safe-read-only profile" };
  if (ws.profile === "unsafe") return { on: false, why: "the unsafe profile" };
  return ws.options.sandbox ? { on: true, why: "--sandbox" } : { on: false, why: "the dev profile without --sandbox" };
}

/** Resolves `working_dir` inside the workspace root (default: the root); it must be an existing directory. */
export function resolveWorkingDir(ws: Workspace, dir: string | undefined): string {
  if (dir === undefined || dir === "" || dir === ".") return ws.root;
  const r = ws.resolve(dir);
  if (!r.exists) throw new ToolError(`working_dir ${r.rel}: no such directory`);
  if (!fs.statSync(r.abs).isDirectory()) throw new ToolError(`working_dir ${r.rel}: not a directory`);
  return r.abs;
}

/**
 * Prepares `command` to run in `cwd`: probes the sandbox and runs the
 * structural check when the sandbox is on. Throws a ToolError (error_type
 * "denied") when the command must not run.
 */
export async function planShell(ws: Workspace, command: string, cwd: string): Promise<ShellPlan> {
  const policy = sandboxPolicy(ws);
  if (!policy.on) return { how: `not sandboxed (${policy.why})` };
  const allowNet = ws.options.allowNet === true;
  // The probe (a file read once this user has run a sandboxed command; see
  // probeSandbox) runs while the command is checked. Plain command lines are
  // checked without the shell parser; the others load it (once per process)
  // while bubblewrap is probed.
  const checkLoading = import("./check.js");
  const probing = probeSandbox(ws.env, ws.root);
  const { checkPlainCommand, checkShellCommand } = await checkLoading;
  let verdict = checkPlainCommand(command, { allowNet });
  const parserLoading = verdict ? undefined : import("./parser.js").then((m) => m.loadBashParser());
  parserLoading?.catch(() => {});
  const probe = await probing;
  if (!probe.available) {
    throw new ToolError(
      `shell commands must run in the read-only sandbox (${policy.why}), and it is not available: ${probe.reason} rt never runs them unsandboxed instead.`,
      {
        error_type: "denied",
        sandbox_unavailable: true,
      },
    );
  }
  if (!verdict) verdict = checkShellCommand(command, await parserLoading!, { allowNet });
  if (!verdict.ok) {
    throw new ToolError(
      `refused, nothing ran: ${verdict.reason}. (Commands run in a read-only sandbox because of ${policy.why}; this check explains what the sandbox would stop.)`,
      {
        error_type: "denied",
        refused: true,
        reason: verdict.reason,
      },
    );
  }
  return {
    sandbox: {
      bwrap: probe.bwrap,
      strategy: probe.strategy,
      root: ws.root,
      cwd,
      allowNet,
      features: probe.features,
      fromCache: probe.fromCache,
    },
    how: `sandboxed: read-only filesystem, private /tmp, ${allowNet ? "network allowed" : "no network"} (${policy.why})`,
  };
}
