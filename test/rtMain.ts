// `rt ARGS` without a Node start per call: the built command line's own
// `main(argv, io, readStdin)` (the function dist/cli.js calls, so the same
// argument parsing, command dispatch, agent set-up, provider code and output)
// run in one long-lived Node process (test/rtMainWorker.mjs), which loads rt
// once. Each call gets the environment, working directory and standard input a
// spawned `rt` would get (as `rt()` in helpers.ts computes them); calls run one
// at a time.
//
// A start of rt costs about a second of CPU (loading and compiling it); a call
// here, tens of milliseconds once warm. What only a process of its own shows
// (start-up, the executable's writers, signals, exit codes as the shell sees
// them, a notice said once per process) stays with `rt()`: a test file that
// uses this keeps at least one real round trip per claim about the command line.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { Readable } from "node:stream";
import { CLI, REPO, type CliResult } from "./helpers.ts";

interface Pending {
  resolve: (r: CliResult) => void;
  reject: (e: Error) => void;
}

let worker: { child: ChildProcess; pending: Map<number, Pending>; log: string } | undefined;
let nextId = 0;

function startWorker() {
  const child = spawn(process.execPath, [path.join(REPO, "test", "rtMainWorker.mjs"), CLI], {
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: process.env,
  });
  const w = { child, pending: new Map<number, Pending>(), log: "" };
  // Output of the worker outside any call (a crash): kept for the error of the calls it fails.
  const keep = (c: Buffer) => void (w.log = (w.log + c.toString("utf8")).slice(-4000));
  for (const s of [child.stdout, child.stderr] as Readable[]) {
    s.on("data", keep);
    (s as Readable & { unref?: () => void }).unref?.();
  }
  child.on("message", (m: CliResult & { id?: number }) => {
    if (m.id === undefined) return;
    const p = w.pending.get(m.id);
    w.pending.delete(m.id);
    if (w.pending.size === 0) idle(child);
    p?.resolve({ code: m.code, stdout: m.stdout, stderr: m.stderr });
  });
  child.on("exit", (code, signal) => {
    if (worker === w) worker = undefined;
    for (const p of w.pending.values())
      p.reject(new Error(`the rt worker exited (${signal ?? code}) during a call:\n${w.log}`));
    w.pending.clear();
  });
  idle(child);
  return w;
}

/** The worker does not keep the test's process alive between calls. */
function idle(child: ChildProcess) {
  child.unref();
  (child as ChildProcess & { channel?: { unref(): void } }).channel?.unref();
}

// When the tests are done, the worker is told to go and waited for, so that it ends as a child of this
// process (its CPU time counted with this process's children, as a spawned rt's is).
process.on("beforeExit", () => {
  const w = worker;
  if (!w) return;
  worker = undefined;
  w.child.ref();
  w.child.disconnect();
});
process.on("exit", () => worker?.child.kill());

/** Like `rt(args, opts)` (helpers.ts): stdout, stderr and the exit code, from rt's main in the worker. */
export function rtMain(
  args: string[],
  opts: { cwd: string; input?: string; env?: Record<string, string | undefined> },
): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env, ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  delete env.RT_ROOT;
  if (opts.env?.RT_ROOT) env.RT_ROOT = opts.env.RT_ROOT;
  worker ??= startWorker();
  const w = worker;
  const id = nextId++;
  return new Promise<CliResult>((resolve, reject) => {
    w.pending.set(id, { resolve, reject });
    w.child.ref();
    (w.child as ChildProcess & { channel?: { ref(): void } }).channel?.ref();
    w.child.send({ id, args, cwd: opts.cwd, env, input: opts.input });
  });
}
