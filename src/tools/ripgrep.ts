// Runs ripgrep (shipped inside the @vscode/ripgrep npm package) and streams its
// output line by line, with a timeout that kills it.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { StringDecoder } from "node:string_decoder";
import { ToolError } from "./types.js";
import { anonymousTempFile } from "../workspace/confinedFs.js";

/** Directories skipped by find and grep even when no .gitignore names them. */
export const ALWAYS_SKIPPED = [".git", "node_modules", ".rt", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache", ".hg", ".svn"];

let cachedPath: string | undefined;

export function rgPath(): string {
  if (cachedPath) return cachedPath;
  const require = createRequire(import.meta.url);
  const pkg = `@vscode/ripgrep-${process.platform}-${process.arch}`;
  try {
    cachedPath = require.resolve(`${pkg}/bin/${process.platform === "win32" ? "rg.exe" : "rg"}`);
  } catch {
    throw new ToolError(`ripgrep is missing: the npm package ${pkg} is not installed; run npm install in rt's directory`);
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
 * Spawns rg with `args` in `cwd` and calls `onLine` for every stdout line
 * (without its newline). Resolves when rg exits or is killed after `timeoutMs`.
 */
export function runRg(args: string[], cwd: string, timeoutMs: number, onLine: (line: string) => void, signal?: AbortSignal): Promise<RgRun> {
  // ripgrep's output goes to an unlinked temporary file, read once it exits: its
  // search threads write each file's matches separately, and reading thousands
  // of small pipe writes one event at a time cost Node more CPU than the search
  // itself (see BENCHMARKS.md). Where no temporary file can be made, a pipe.
  const out = openScratch();
  let released = false;
  const release = () => {
    if (out !== undefined && !released) fs.closeSync(out);
    released = true;
  };
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath(), args, { cwd, stdio: ["ignore", out ?? "pipe", "pipe"] });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    const onAbort = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", onAbort, { once: true });
    let pending = "";
    let stderr = "";
    const take = (chunk: string) => {
      pending += chunk;
      let nl = pending.indexOf("\n");
      let from = 0;
      while (nl !== -1) {
        onLine(pending.slice(from, nl));
        from = nl + 1;
        nl = pending.indexOf("\n", from);
      }
      pending = pending.slice(from);
    };
    if (child.stdout) {
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", take);
    }
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (c: string) => {
      if (stderr.length < 10_000) stderr += c;
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      release();
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      try {
        if (out !== undefined && !released) readScratch(out, take);
      } catch (e) {
        reject(e);
        return;
      } finally {
        release();
      }
      if (pending) onLine(pending);
      resolve({ exitCode: code, stderr, timedOut });
    });
  });
}

/** A read-write file descriptor on a new temporary file that is already unlinked, or undefined (the confined writer makes it). */
function openScratch(): number | undefined {
  return anonymousTempFile();
}

/** Feeds the file behind `fd` to `take` in 1 MiB pieces of text (memory stays bounded). */
function readScratch(fd: number, take: (text: string) => void): void {
  const buf = Buffer.allocUnsafe(1 << 20);
  const decoder = new StringDecoder("utf8");
  let pos = 0;
  for (;;) {
    const n = fs.readSync(fd, buf, 0, buf.length, pos);
    if (n <= 0) break;
    pos += n;
    take(decoder.write(n === buf.length ? buf : buf.subarray(0, n)));
  }
  take(decoder.end());
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
