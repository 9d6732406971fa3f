// Runs one shell command: `bash -c COMMAND`, directly or inside bubblewrap,
// as the leader of a new process group. A timeout (or kill, or abort) sends
// SIGTERM to the whole group and SIGKILL after a grace period; when the
// command's shell exits, whatever it left running in its group is killed too,
// so nothing outlives the command (use a background shell for that).
import fs from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { BASH_KILL_GRACE_MS } from "../base/limits.js";
import { bwrapArgs, forgetSandboxProbe, sandboxSeccomp, type SandboxSpec } from "./sandbox.js";
import { killGroup, trackGroup, untrackGroup } from "./processes.js";

export type StreamName = "stdout" | "stderr";

export interface RunOptions {
  command: string;
  /** Working directory (absolute). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Run inside bubblewrap with this configuration; undefined runs directly. */
  sandbox?: SandboxSpec;
  /** Kill the group after this long; undefined means no limit (background shells). */
  timeoutMs?: number;
  signal?: AbortSignal;
  onData: (stream: StreamName, chunk: Buffer) => void;
  /** Run this program with these arguments instead of `bash -c command` (custom tools: nothing goes through a shell). */
  argv?: readonly string[];
  /** Written to the program's standard input, which is then closed (default: no standard input). */
  stdin?: string;
}

export interface ExitInfo {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Ended by kill() or the abort signal. */
  killed: boolean;
  durationMs: number;
  /** The process could not be started at all. */
  spawnError?: string;
}

export interface RunningCommand {
  pid: number | undefined;
  startedAt: number;
  done: Promise<ExitInfo>;
  /** Ends the command and everything it started. */
  kill(): void;
  /** Lets this process exit while the command runs (background shells); it is then killed on exit. */
  unref(): void;
}

let shellPath: string | undefined;

/** bash, or sh where there is no bash. */
export function shellExecutable(): string {
  if (!shellPath)
    shellPath = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"].find((p) => fs.existsSync(p)) ?? "/bin/sh";
  return shellPath;
}

export function startCommand(opts: RunOptions): RunningCommand {
  const startedAt = Date.now();
  const shell = shellExecutable();
  let child: ChildProcess;
  const filter = opts.sandbox ? sandboxSeccomp() : undefined;
  const program = opts.argv && opts.argv.length ? [...opts.argv] : [shell, "-c", opts.command];
  const input = opts.stdin !== undefined ? "pipe" : "ignore";
  try {
    if (opts.sandbox) {
      const args = [...bwrapArgs(opts.sandbox, filter ? 3 : undefined), "--", ...program];
      child = spawn(opts.sandbox.bwrap, args, {
        cwd: opts.cwd,
        env: opts.env,
        detached: true,
        stdio: [input, "pipe", "pipe", filter ? "pipe" : "ignore"],
      });
      const extra = child.stdio[3] as import("node:stream").Writable | null;
      if (extra && filter) {
        extra.on("error", () => {});
        extra.end(filter);
      }
    } else {
      child = spawn(program[0], program.slice(1), {
        cwd: opts.cwd,
        env: opts.env,
        detached: true,
        stdio: [input, "pipe", "pipe"],
      });
    }
    if (opts.stdin !== undefined && child.stdin) {
      // A program that exits without reading its input must not fail the run (EPIPE).
      child.stdin.on("error", () => {});
      child.stdin.end(opts.stdin);
    }
  } catch (e) {
    const info: ExitInfo = {
      exitCode: null,
      signal: null,
      timedOut: false,
      killed: false,
      durationMs: 0,
      spawnError: (e as Error).message,
    };
    return { pid: undefined, startedAt, done: Promise.resolve(info), kill: () => {}, unref: () => {} };
  }
  const pid = child.pid;
  if (pid !== undefined) trackGroup(pid);
  let timedOut = false;
  let killed = false;
  let graceTimer: NodeJS.Timeout | undefined;
  let exited = false;

  const terminate = () => {
    if (pid === undefined || exited) return;
    killGroup(pid, "SIGTERM");
    graceTimer ??= setTimeout(() => killGroup(pid, "SIGKILL"), BASH_KILL_GRACE_MS);
  };
  const timer =
    opts.timeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          terminate();
        }, opts.timeoutMs)
      : undefined;
  const onAbort = () => {
    killed = true;
    terminate();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();

  // The start of stderr, to tell bwrap refusing to start ("bwrap: ...", exit 1) after a cached probe.
  let stderrHead = "";
  child.stdout!.on("data", (c: Buffer) => opts.onData("stdout", c));
  child.stderr!.on("data", (c: Buffer) => {
    if (stderrHead.length < 64) stderrHead += c.subarray(0, 64).toString("latin1");
    opts.onData("stderr", c);
  });

  const done = new Promise<ExitInfo>((resolve) => {
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    let spawnError: string | undefined;
    const finish = () => {
      if (settled) return;
      settled = true;
      // bwrap refused to start (its message, exit 1) with a probe answer from the disk cache: forget it.
      if (opts.sandbox?.fromCache && exitCode === 1 && stderrHead.startsWith("bwrap: "))
        forgetSandboxProbe(opts.sandbox.bwrap);
      if (timer) clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) untrackGroup(pid);
      resolve({
        exitCode,
        signal: exitSignal,
        timedOut,
        killed,
        durationMs: Date.now() - startedAt,
        ...(spawnError ? { spawnError } : {}),
      });
    };
    child.on("error", (e) => {
      spawnError = e.message;
      finish();
    });
    child.on("exit", (code, sig) => {
      exited = true;
      exitCode = code;
      exitSignal = sig;
      // Whatever the command left behind in its group goes with it.
      if (pid !== undefined) killGroup(pid, "SIGKILL");
      // Output still buffered in the pipes arrives before 'close'; a grandchild
      // that escaped the group could hold them open, so do not wait forever.
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, 1_000).unref();
    });
    child.on("close", finish);
  });

  return {
    pid,
    startedAt,
    done,
    kill: () => {
      killed = true;
      terminate();
    },
    unref: () => {
      child.unref();
      (child.stdout as { unref?: () => void } | null)?.unref?.();
      (child.stderr as { unref?: () => void } | null)?.unref?.();
      timer?.unref();
    },
  };
}
