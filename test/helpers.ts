// Shared test helpers: temp workspaces with real files, the real `rt` binary
// (dist/cli.js, built by `npm test`), and a hash of a whole tree for
// "nothing changed" checks.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Soak runs (`npm run test:soak`, RT_SOAK=1): a test whose power grows with its length (a race run for
 * hundreds of calls) takes the long count there and a short one in `npm test` (docs/testing.md).
 */
export const SOAK = process.env.RT_SOAK === "1";
export function soak<T>(short: T, long: T): T {
  return SOAK ? long : short;
}

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CLI = path.join(REPO, "dist", "cli.js");
/** The built code (scripts/build.mjs): the entry points dist/cli.js and dist/index.js, and dist/chunks/. */
export function cliBundleText(): string {
  const files = [
    path.join(REPO, "dist", "cli.js"),
    ...fs.readdirSync(path.join(REPO, "dist", "chunks")).map((f) => path.join(REPO, "dist", "chunks", f)),
  ];
  return files
    .filter((f) => f.endsWith(".js"))
    .map((f) => fs.readFileSync(f, "utf8"))
    .join("\n");
}

/** Every module reachable from `entry` through static imports, and the bare packages they import (what loading it loads). */
export function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = fs.readFileSync(file, "utf8");
    // Static import and re-export statements only (import("...") is dynamic and not followed).
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(?:[^"';()]*?\sfrom\s+)?["']([^"']+)["']/gm)) {
      const spec = m[1];
      if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec));
      else if (!spec.startsWith("node:"))
        packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
    }
  };
  visit(entry);
  return { files, packages };
}

/** A fresh temp directory holding `files` (path → content); removed when the process exits. */
export function tempTree(files: Record<string, string | Buffer> = {}, prefix = "rt-test-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
  tempDirs.add(dir);
  return dir;
}

/** Temp trees made by this process, removed by one exit handler (one listener per tree would trip Node's listener warning). */
const tempDirs = new Set<string>();
process.on("exit", () => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `rt ARGS` in `cwd` (the root unless --root is given), optionally feeding stdin. */
export function rt(
  args: string[],
  opts: { cwd: string; input?: string; env?: Record<string, string | undefined> },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...opts.env };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    delete env.RT_ROOT;
    if (opts.env?.RT_ROOT) env.RT_ROOT = opts.env.RT_ROOT;
    const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? "");
  });
}

/** `rt call TOOL --args JSON`, parsed. */
export async function rtCall(
  tool: string,
  args: unknown,
  opts: { cwd: string; env?: Record<string, string | undefined> },
) {
  const r = await rt(["call", tool, "--args", JSON.stringify(args)], opts);
  return { code: r.code, result: JSON.parse(r.stdout) as Record<string, any>, stderr: r.stderr };
}

/** SHA-256 over every path, mode, symlink target and content below `dir` (excluding `skip` names). */
export function treeHash(dir: string, skip: string[] = [".rt"]): string {
  const h = crypto.createHash("sha256");
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      if (skip.includes(name)) continue;
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      h.update(`${path.relative(dir, p)}\0${st.mode}\0`);
      if (st.isSymbolicLink()) h.update(fs.readlinkSync(p));
      else if (st.isDirectory()) walk(p);
      else h.update(fs.readFileSync(p));
    }
  };
  walk(dir);
  return h.digest("hex");
}

export function lines(n: number, make: (i: number) => string = (i) => `line ${i}`): string {
  let s = "";
  for (let i = 1; i <= n; i++) s += `${make(i)}\n`;
  return s;
}

/** Runs git in `cwd` (throws on failure) and returns its standard output. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  });
}

/** `rt call --batch` fed with `requests` (objects are JSON-encoded, strings sent as they are), results parsed. */
export async function rtBatch(
  requests: Array<string | { tool: string; args?: unknown }>,
  opts: { cwd: string; env?: Record<string, string | undefined> },
) {
  const input = requests.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n";
  const r = await rt(["call", "--batch"], { ...opts, input });
  const results = r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, any>);
  return { code: r.code, results, stderr: r.stderr };
}

/** A small seeded random source (xorshift32) for generated test cases, the bench data's own: the same seed, the same cases. */
export { rng as seededRandom } from "../bench/data.mjs";
