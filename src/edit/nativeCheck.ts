// The language's own parser as a second opinion on syntax, where it is cheap
// and present at run time. tree-sitter stays the primary check: its
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
import os from "node:os";
import { NATIVE_CHECK_MAX_CHARS, PYTHON_CHECK_TIMEOUT_MS } from "../base/limits.js";
import { findSystemProgram } from "../base/systemProgram.js";

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

/** python3 runs of which failed to start: not tried again in this process. */
const brokenPythons = new Set<string>();
const pythonByRoot = new Map<string, string | null>();

/**
 * The system's python3 for a workspace rooted at `root` (RT_PYTHON, an absolute
 * path, or the PATH rt started with; never one inside the workspace: see
 * systemProgram.ts), or undefined (RT_PYTHON=off, none found).
 */
function findPython(root: string | undefined): string | undefined {
  const configured = process.env.RT_PYTHON;
  if (configured === "off" || configured === "0") return undefined;
  const key = root ?? "";
  let found = pythonByRoot.get(key);
  if (found === undefined) {
    found =
      findSystemProgram("python3", {
        root,
        override: { variable: "RT_PYTHON", value: configured },
        purpose: "a syntax check",
      }).path ?? null;
    pythonByRoot.set(key, found);
  }
  return found === null || brokenPythons.has(found) ? undefined : found;
}

/** Keeps the process alive while a request is pending (an idle worker must not). */
function hold(w: Worker, on: boolean): void {
  const streams = [w.child, w.child.stdout, w.child.stdin] as unknown as Array<{
    ref?: () => void;
    unref?: () => void;
  } | null>;
  for (const s of streams) (on ? s?.ref : s?.unref)?.call(s);
}

interface Worker {
  python: string;
  child: ChildProcess;
  buffer: string;
  waiting: Array<(line: string | undefined) => void>;
}

let worker: Worker | undefined;
let queue: Promise<unknown> = Promise.resolve();

function startWorker(python: string): Worker | undefined {
  let child: ChildProcess;
  try {
    child = spawn(python, ["-I", "-c", PYTHON_WORKER], { stdio: ["pipe", "pipe", "ignore"], cwd: os.tmpdir() });
  } catch {
    brokenPythons.add(python);
    return undefined;
  }
  const w: Worker = { python, child, buffer: "", waiting: [] };
  const fail = (): void => {
    if (worker === w) worker = undefined;
    for (const r of w.waiting.splice(0)) r(undefined);
  };
  child.on("error", () => {
    brokenPythons.add(python);
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

async function askPython(text: string, root: string | undefined): Promise<NativeVerdict> {
  const python = findPython(root);
  if (!python) return undefined;
  if (worker && worker.python !== python) {
    // Another workspace, another python3 (one of them lay inside a root): one worker at a time.
    worker.child.kill("SIGKILL");
    worker = undefined;
  }
  worker ??= startWorker(python);
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
export function pythonVerdict(text: string, root?: string): Promise<NativeVerdict> {
  if (text.length > NATIVE_CHECK_MAX_CHARS) return Promise.resolve(undefined);
  const run = queue.then(() => askPython(text, root));
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
    vmModule.compileFunction(source, ["exports", "require", "module", "__filename", "__dirname"], {
      filename: "edit.js",
    });
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
