// Runs ripgrep (shipped inside the @vscode/ripgrep npm package) and streams its
// output line by line, with a timeout that kills it.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { ToolError } from "./types.js";

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
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath(), args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    const onAbort = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", onAbort, { once: true });
    let pending = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      pending += chunk;
      let nl = pending.indexOf("\n");
      let from = 0;
      while (nl !== -1) {
        onLine(pending.slice(from, nl));
        from = nl + 1;
        nl = pending.indexOf("\n", from);
      }
      pending = pending.slice(from);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (c: string) => {
      if (stderr.length < 10_000) stderr += c;
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (pending) onLine(pending);
      resolve({ exitCode: code, stderr, timedOut });
    });
  });
}
