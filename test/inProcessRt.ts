// `rt ARGS` run inside the test's own process: the function the executable
// (src/cli.ts) calls, `main(argv, io, readStdin)` of src/faces/cli/main.ts, with
// the same argument parsing, command dispatch, agent set-up, provider code and
// output path, but without starting a Node process per call (each start loads
// and compiles rt again: about a second under load). The environment and the
// working directory a spawned rt would get are put in place for the call and
// restored after it; calls run one at a time, since both belong to the process.
//
// What only a real process shows (the executable's own stdout/stderr writers,
// exit codes as the shell sees them, start-up) stays with `rt()` in helpers.ts:
// a test file that uses this keeps at least one real CLI round trip per claim
// about the CLI.
import type { CliResult } from "./helpers.ts";

type Main = (
  argv: string[],
  io: import("../src/ui/io.ts").Io,
  readStdin: () => Promise<string | null>,
) => Promise<number>;
let mainFn: Promise<Main> | undefined;
let chain: Promise<unknown> = Promise.resolve();

/** Like `rt(args, opts)` (helpers.ts), in this process: stdout, stderr and the exit code `main` returns. */
export function rtInProcess(
  args: string[],
  opts: { cwd: string; input?: string; env?: Record<string, string | undefined> },
): Promise<CliResult> {
  const run = chain.then(() => runOnce(args, opts));
  chain = run.catch(() => undefined);
  return run;
}

async function runOnce(
  args: string[],
  opts: { cwd: string; input?: string; env?: Record<string, string | undefined> },
): Promise<CliResult> {
  mainFn ??= import("../src/faces/cli/main.ts").then((m) => m.main as Main);
  const main = await mainFn;
  // As helpers.ts' rt(): the test's environment, less RT_ROOT unless given, with the call's variables over it.
  const vars: Record<string, string | undefined> = { RT_ROOT: undefined, ...opts.env };
  const saved = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(vars)) {
    saved.set(k, process.env[k]);
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const cwd = process.cwd();
  process.chdir(opts.cwd);
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (s: string) => void (stdout += s),
    stderr: (s: string) => void (stderr += s),
    write: (stream: "stdout" | "stderr", data: Buffer) =>
      void (stream === "stdout" ? (stdout += data.toString("utf8")) : (stderr += data.toString("utf8"))),
    // Standard output and error of a spawned rt in a test are pipes, not terminals.
    tty: { stdout: false, stderr: false },
    cwd: opts.cwd,
  };
  let code: number;
  try {
    code = await main(args, io, async () => opts.input ?? "");
  } catch (e) {
    // As src/cli.ts reports an exception that escaped main.
    stderr += `rt: internal error: ${(e as Error)?.stack ?? String(e)}\n`;
    code = 1;
  } finally {
    process.chdir(cwd);
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  return { code, stdout, stderr };
}
