// The language's own parser as a second opinion on syntax, where it is cheap
// and present at run time (issue 10). tree-sitter stays the primary check: its
// grammars are permissive where the compilers are not (tree-sitter-python
// accepts `x = a:b`, `m := f()` as a statement, `r: eturn None`; tree-sitter-
// javascript accepts a redeclared `let` or a `const` without initializer), so
// an edit tree-sitter passes is also compiled by:
//   - Python: CPython's compile(), in one long-lived `python3 -I` process
//     started on first use (nothing runs: compile() only parses and builds
//     code objects). rt never depends on it: when no python3 is found, or it
//     does not answer in time, the check is skipped.
//   - JavaScript (scripts, i.e. CommonJS): V8's own compiler through
//     `vm.compileFunction` with Node's module wrapper (compiled, never run). Module code (import/export) does
//     not compile as a script and is left to tree-sitter.
// Either is consulted only as "did the edit break it": the old text must pass
// the same check for a failure of the new text to count.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NATIVE_CHECK_MAX_CHARS, PYTHON_CHECK_TIMEOUT_MS } from "../limits.js";

/** A syntax error as the language's compiler reports it: 0-based row, 0-based column (characters). */
export interface NativeError {
  row: number;
  column: number;
  message: string;
}

/** null: compiles; undefined: could not be checked (no compiler, too large, timed out). */
export type NativeVerdict = NativeError | null | undefined;

// ------------------------------------------------------------------ Python

const PYTHON_WORKER = `
import sys, json, warnings
warnings.simplefilter("ignore")
inp = sys.stdin.buffer
out = sys.stdout
while True:
    head = inp.readline()
    if not head:
        break
    src = inp.read(int(head)).decode("utf-8", "surrogateescape")
    try:
        compile(src, "<edit>", "exec", dont_inherit=True)
        res = {"ok": True}
    except SyntaxError as e:
        res = {"line": e.lineno or 1, "col": (e.offset or 1), "msg": e.msg}
    except ValueError as e:
        res = {"line": 1, "col": 1, "msg": str(e)}
    except Exception as e:
        res = {"unknown": type(e).__name__}
    out.write(json.dumps(res) + "\\n")
    out.flush()
`;

/** An executable python3 from PATH, skipping relative entries and directories inside the current repository. */
function findPython(): string | undefined {
  const configured = process.env.RT_PYTHON;
  if (configured === "off" || configured === "0") return undefined;
  if (configured && path.isAbsolute(configured)) return configured;
  let repo = process.cwd();
  for (let d = repo; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, ".git"))) {
      repo = d;
      break;
    }
    if (path.dirname(d) === d) break;
  }
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const rel = path.relative(repo, dir);
    if (rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))) continue;
    const exe = path.join(dir, "python3");
    try {
      fs.accessSync(exe, fs.constants.X_OK);
      return exe;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Keeps the process alive while a request is pending (an idle worker must not). */
function hold(w: Worker, on: boolean): void {
  const streams = [w.child, w.child.stdout, w.child.stdin] as unknown as Array<{ ref?: () => void; unref?: () => void } | null>;
  for (const s of streams) (on ? s?.ref : s?.unref)?.call(s);
}

interface Worker {
  child: ChildProcess;
  buffer: string;
  waiting: Array<(line: string | undefined) => void>;
}

let pythonPath: string | null | undefined;
let worker: Worker | undefined;
let queue: Promise<unknown> = Promise.resolve();

function startWorker(): Worker | undefined {
  if (pythonPath === undefined) pythonPath = findPython() ?? null;
  if (pythonPath === null) return undefined;
  let child: ChildProcess;
  try {
    child = spawn(pythonPath, ["-I", "-c", PYTHON_WORKER], { stdio: ["pipe", "pipe", "ignore"], cwd: os.tmpdir() });
  } catch {
    pythonPath = null;
    return undefined;
  }
  const w: Worker = { child, buffer: "", waiting: [] };
  const fail = (): void => {
    if (worker === w) worker = undefined;
    for (const r of w.waiting.splice(0)) r(undefined);
  };
  child.on("error", () => {
    pythonPath = null;
    fail();
  });
  child.on("exit", fail);
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    w.buffer += chunk;
    for (let nl = w.buffer.indexOf("\n"); nl !== -1; nl = w.buffer.indexOf("\n")) {
      const line = w.buffer.slice(0, nl);
      w.buffer = w.buffer.slice(nl + 1);
      w.waiting.shift()?.(line);
    }
  });
  child.stdin!.on("error", fail);
  // The idle worker never keeps rt's process alive (see hold).
  hold(w, false);
  return w;
}

async function askPython(text: string): Promise<NativeVerdict> {
  worker ??= startWorker();
  const w = worker;
  if (!w) return undefined;
  const bytes = Buffer.from(text, "utf8");
  hold(w, true);
  const answer = new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => {
      // No answer in time: the worker is stuck (a pathological file); drop it.
      w.child.kill("SIGKILL");
      resolve(undefined);
    }, PYTHON_CHECK_TIMEOUT_MS);
    timer.unref();
    w.waiting.push((line) => {
      clearTimeout(timer);
      resolve(line);
    });
  });
  w.child.stdin!.write(`${bytes.length}\n`);
  w.child.stdin!.write(bytes);
  const line = await answer;
  hold(w, false);
  if (line === undefined) return undefined;
  try {
    const r = JSON.parse(line) as { ok?: true; line?: number; col?: number; msg?: string };
    if (r.ok) return null;
    if (r.line === undefined || r.msg === undefined) return undefined;
    return { row: r.line - 1, column: Math.max(0, (r.col ?? 1) - 1), message: r.msg };
  } catch {
    return undefined;
  }
}

/** Python's compile() verdict on `text` (one request at a time through the worker). */
export function pythonVerdict(text: string): Promise<NativeVerdict> {
  if (text.length > NATIVE_CHECK_MAX_CHARS) return Promise.resolve(undefined);
  const run = queue.then(() => askPython(text));
  queue = run.catch(() => undefined);
  return run;
}

// ------------------------------------------------------------------ JavaScript

let vmModule: typeof import("node:vm") | undefined;

/** V8's verdict on `text` compiled as a classic script; undefined for module code (import/export) or when V8 is not the judge. */
export async function scriptVerdict(text: string): Promise<NativeVerdict> {
  if (text.length > NATIVE_CHECK_MAX_CHARS) return undefined;
  vmModule ??= await import("node:vm");
  // A hashbang line is allowed by Node, not by a plain script compile.
  const source = text.startsWith("#!") ? `//${text.slice(2)}` : text;
  try {
    // Compiled as Node compiles a CommonJS module, inside its function wrapper
    // (a top-level `return` is fine there); never run.
    vmModule.compileFunction(source, ["exports", "require", "module", "__filename", "__dirname"], { filename: "edit.js" });
    return null;
  } catch (e) {
    if (!(e instanceof SyntaxError)) return undefined;
    const stack = String((e as Error).stack ?? "");
    const m = /^edit\.js:(\d+)/m.exec(stack);
    const row = m ? Number(m[1]) - 1 : 0;
    // The caret line under the source line gives the column.
    const lines = stack.split("\n");
    const caret = lines.findIndex((l) => /^\s*\^+\s*$/.test(l));
    const column = caret > 0 ? lines[caret].indexOf("^") : 0;
    return { row, column, message: e.message };
  }
}

/** Stops the Python worker (tests; the process exits without it anyway). */
export function stopNativeCheckers(): void {
  worker?.child.kill();
  worker = undefined;
}
