// Runs ripgrep (shipped inside the @vscode/ripgrep npm package) and streams its
// output line by line, with a timeout that kills it.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { StringDecoder } from "node:string_decoder";
import { ToolError } from "../types.js";
import { anonymousTempFile } from "../../workspace/confinedFs.js";
import { packageRoot } from "../../base/packageRoot.js";

/** Directories skipped by find and grep even when no .gitignore names them. */
export const ALWAYS_SKIPPED = [
  ".git",
  "node_modules",
  ".rt",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".hg",
  ".svn",
];

let cachedPath: string | undefined;

export function rgPath(): string {
  if (cachedPath) return cachedPath;
  const pkg = `@vscode/ripgrep-${process.platform}-${process.arch}`;
  const exe = process.platform === "win32" ? "rg.exe" : "rg";
  // Where npm puts it beside rt's own package (no module resolution: that walks
  // the file system and costs a one-shot command a few milliseconds); else resolved.
  try {
    const beside = path.join(packageRoot(), "node_modules", pkg, "bin", exe);
    if (fs.existsSync(beside)) return (cachedPath = beside);
  } catch {
    /* an incomplete package: resolve it below */
  }
  const require = createRequire(import.meta.url);
  try {
    cachedPath = require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    throw new ToolError(
      `ripgrep is missing: the npm package ${pkg} is not installed; run npm install in rt's directory`,
    );
  }
  return cachedPath;
}

/** Common flags: hidden files included, .gitignore honored even outside git, the usual junk skipped. */
export function baseArgs(): string[] {
  const args = ["--hidden", "--no-require-git", "--no-config", "--color", "never"];
  for (const d of ALWAYS_SKIPPED) args.push("--glob", `!${d}`);
  return args;
}

export interface RgRun {
  exitCode: number | null;
  stderr: string;
  timedOut: boolean;
}

/**
 * The buffer rg's output is read into, made once per process: a fresh 1 MB
 * for each search cost more than a small search itself (its pages are new
 * memory). Sharing it is safe: it is filled and handed to onData within one
 * synchronous drain, and onData copies what it keeps.
 */
let sharedReadBuffer: Buffer | undefined;
function readBuffer(): Buffer {
  return (sharedReadBuffer ??= Buffer.allocUnsafe(1 << 20));
}

/** How much of ripgrep's error output is kept (its first lines say what went wrong). */
const MAX_STDERR_CHARS = 10_000;

/** How often the output file is read while ripgrep still runs. */
const POLL_MS = 4;

/**
 * Spawns rg with `args` in `cwd` and hands its standard output to `onData` as
 * it is produced (`chunk` is only valid during the call: copy what you keep).
 * Resolves when rg exits, or is killed after `timeoutMs` or when `signal` aborts.
 */
export function runRg(
  args: string[],
  cwd: string,
  timeoutMs: number,
  onData: (chunk: Buffer) => void,
  signal?: AbortSignal,
  pollMs = POLL_MS,
): Promise<RgRun> {
  // ripgrep's output goes to an unlinked temporary file that rt reads while rg
  // runs, in large pieces: its search threads write each file's matches
  // separately, and taking thousands of small pipe writes one event at a time
  // cost Node more CPU than the search itself (see BENCHMARKS.md); reading only
  // after rg exited made rt's share of the work wait for the whole search.
  // Where no temporary file can be made, a pipe. Its error output goes to a
  // second temporary file, read when it exits: a pipe for it cost the first
  // spawn of a process a stream of its own (7 ms of a cold grep here).
  const out = openScratch();
  const errOut = out === undefined ? undefined : openScratch();
  const closeScratch = () => {
    if (out !== undefined) fs.closeSync(out);
    if (errOut !== undefined) fs.closeSync(errOut);
  };
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath(), args, { cwd, stdio: ["ignore", out ?? "pipe", errOut ?? "pipe"] });
    let timedOut = false;
    let stderr = "";
    let failed = false;
    const buf = out === undefined ? undefined : readBuffer();
    let pos = 0;
    /** Reads what rg has written since the last call (all of it once rg has exited). */
    const drain = () => {
      if (out === undefined || buf === undefined || failed) return;
      try {
        for (;;) {
          const n = fs.readSync(out, buf, 0, buf.length, pos);
          if (n <= 0) return;
          pos += n;
          onData(n === buf.length ? buf : buf.subarray(0, n));
        }
      } catch (e) {
        failed = true;
        child.kill("SIGKILL");
        reject(e);
      }
    };
    const poll = out === undefined ? undefined : setInterval(drain, pollMs);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    const onAbort = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", onAbort, { once: true });
    const finish = () => {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      signal?.removeEventListener("abort", onAbort);
    };
    if (child.stdout) child.stdout.on("data", (c: Buffer) => onData(c));
    if (child.stderr) {
      child.stderr.setEncoding("utf8");
      child.stderr.on("data", (c: string) => {
        if (stderr.length < MAX_STDERR_CHARS) stderr += c;
      });
    }
    child.on("error", (e) => {
      finish();
      closeScratch();
      reject(e);
    });
    child.on("close", (code) => {
      finish();
      drain();
      if (errOut !== undefined) {
        try {
          const err = Buffer.alloc(MAX_STDERR_CHARS);
          stderr = err.toString("utf8", 0, fs.readSync(errOut, err, 0, err.length, 0));
        } catch {
          stderr = "(ripgrep's error output could not be read)";
        }
      }
      closeScratch();
      if (!failed) resolve({ exitCode: code, stderr, timedOut });
    });
  });
}

/** `onData` for runRg that calls `onLine` with each line of text (without its newline; a last unterminated line too, once `end()` is called). */
export function lineSplitter(onLine: (line: string) => void): { onData: (chunk: Buffer) => void; end: () => void } {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  const take = (text: string) => {
    pending += text;
    let from = 0;
    for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n", from)) {
      onLine(pending.slice(from, nl));
      from = nl + 1;
    }
    pending = pending.slice(from);
  };
  return {
    onData: (chunk) => take(decoder.write(chunk)),
    end: () => {
      take(decoder.end());
      if (pending) onLine(pending);
      pending = "";
    },
  };
}

/** A read-write file descriptor on a new temporary file that is already unlinked, or undefined (the confined writer makes it). */
function openScratch(): number | undefined {
  return anonymousTempFile();
}

/**
 * The order find and grep list paths in: segment by segment, so a directory's
 * files stay together ("a/b" before "a-b", as in a tree), then by UTF-16 code
 * units. Whatever order ripgrep's threads finish in, the listing is the same.
 */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1; // "/" ends a segment: the shorter segment first
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * A glob in ripgrep's (gitignore) syntax as a test on root-relative paths, for
 * filtering ripgrep's output ourselves: ripgrep's own --glob/--iglob are
 * overrides that would bring back files that .gitignore (or the skip list above)
 * leaves out. Without a "/", the glob is matched against the file name;
 * otherwise against the whole path ("**" crosses directories, "*" does not).
 * Supports * ? ** [abc] [!abc] {a,b} and backslash escapes.
 */
export function globMatcher(glob: string, ignoreCase = false): (rel: string) => boolean {
  const byPath = glob.includes("/");
  const g = glob.startsWith("/") ? glob.slice(1) : glob;
  let re = "";
  let depth = 0;
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === "*") {
      if (g[i + 1] === "*") {
        const wholeSegment = (i === 0 || g[i - 1] === "/") && (i + 2 === g.length || g[i + 2] === "/");
        if (wholeSegment && g[i + 2] === "/") {
          re += "(?:.*/)?"; // "**/" also matches no directory at all
          i += 2;
        } else {
          re += ".*";
          i += 1;
        }
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const end = g.indexOf("]", i + 2);
      if (end === -1) re += "\\[";
      else {
        let body = g.slice(i + 1, end).replace(/\\/g, "\\\\");
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        re += `[${body}]`;
        i = end;
      }
    } else if (c === "{") {
      depth++;
      re += "(?:";
    } else if (c === "}" && depth > 0) {
      depth--;
      re += ")";
    } else if (c === "," && depth > 0) re += "|";
    else if (c === "\\" && i + 1 < g.length) re += escapeRe(g[++i]);
    else re += escapeRe(c);
  }
  re += ")".repeat(depth);
  const rx = new RegExp(`^(?:${re})$`, ignoreCase ? "i" : "");
  return byPath ? (rel) => rx.test(rel) : (rel) => rx.test(rel.slice(rel.lastIndexOf("/") + 1));
}

function escapeRe(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}
