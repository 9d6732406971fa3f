// `rt ARGS` on a real pseudo-terminal (Python's pty module): what a person at a
// terminal sees, with the time each piece of output arrived.
import { spawn } from "node:child_process";
import { CLI } from "../helpers.ts";

export interface PtyRun {
  /** Everything written to the terminal (stdout and stderr together, as on a terminal). */
  output: string;
  /** Each read from the terminal: milliseconds since the start, and the text. */
  chunks: Array<{ ms: number; text: string }>;
  code: number | null;
}

const SCRIPT = `
import os, pty, sys, select, time, json, base64
args = json.loads(sys.argv[1]); deadline = time.time() + float(sys.argv[2])
start = time.time()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(args[0], args)
chunks = []; timed_out = True
while time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.05)
    if fd in r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            timed_out = False; break
        if not data:
            timed_out = False; break
        chunks.append([int((time.time() - start) * 1000), base64.b64encode(data).decode()])
if timed_out:
    try: os.kill(pid, 9)
    except Exception: pass
_, status = os.waitpid(pid, 0)
print(json.dumps({"chunks": chunks, "code": 124 if timed_out else os.waitstatus_to_exitcode(status)}))
`;

export function rtOnPty(
  args: string[],
  opts: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number },
): Promise<PtyRun> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, TERM: "xterm-256color", ...opts.env }))
    if (v !== undefined && !k.startsWith("RT_") && k !== "NO_COLOR") env[k] = v;
  if (opts.env?.NO_COLOR !== undefined) env.NO_COLOR = opts.env.NO_COLOR;
  return new Promise((resolve, reject) => {
    const child = spawn(
      "python3",
      ["-c", SCRIPT, JSON.stringify([process.execPath, CLI, ...args]), String((opts.timeoutMs ?? 30_000) / 1000)],
      {
        cwd: opts.cwd,
        env,
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.on("error", reject);
    child.on("close", () => {
      try {
        const r = JSON.parse(out) as { chunks: Array<[number, string]>; code: number };
        const chunks = r.chunks.map(([ms, b64]) => ({ ms, text: Buffer.from(b64, "base64").toString("utf8") }));
        resolve({ output: chunks.map((c) => c.text).join(""), chunks, code: r.code });
      } catch (e) {
        reject(new Error(`pty runner failed: ${(e as Error).message}: ${out}`));
      }
    });
  });
}
