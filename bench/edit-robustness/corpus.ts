// Real source files to edit: Python's standard library as installed here and
// JavaScript/TypeScript from a fixed list of packages in node_modules (a fixed
// list, so that other packages being installed does not change the corpus).
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import type { Rng } from "./rng.ts";

export type Lang = "py" | "js" | "ts";

export interface SourceFile {
  /** Shown in reports: "stdlib/json/decoder.py", "node_modules/diff/libesm/patch/apply.js". */
  name: string;
  lang: Lang;
  /** LF-only text (files with CR are skipped: the CRLF classes add them on purpose). */
  text: string;
}

const MIN_BYTES = 1_500;
const MAX_BYTES = 120_000;
/** Minified or generated code is not what models edit by hand. */
const MAX_LINE = 400;
const MAX_AVG_LINE = 90;

const SKIP_DIRS = new Set(["test", "tests", "idle_test", "site-packages", "__pycache__", "node_modules", "dist-types"]);
const JS_PACKAGES = [
  "diff/libesm",
  "@types/node",
  "typescript/lib",
  "zod",
  "glob",
  "minimatch",
  "semver",
  "pg/lib",
  "pg-protocol/src",
  "tsx/dist",
];

function walk(dir: string, exts: string[], out: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) walk(p, exts, out);
    } else if (e.isFile() && exts.some((x) => e.name.endsWith(x)) && !e.name.endsWith(".min.js")) out.push(p);
  }
}

function usable(text: string): boolean {
  if (text.includes("\r") || text.includes("\u0000")) return false;
  const lines = text.split("\n");
  if (lines.length < 30) return false;
  if (lines.some((l) => l.length > MAX_LINE)) return false;
  return text.length / lines.length <= MAX_AVG_LINE;
}

function sample(
  paths: string[],
  count: number,
  rng: Rng,
  root: string,
  prefix: string,
  langOf: (p: string) => Lang,
): SourceFile[] {
  const out: SourceFile[] = [];
  const pool = [...paths];
  while (out.length < count && pool.length > 0) {
    const p = pool.splice(rng.int(pool.length), 1)[0];
    const size = fs.statSync(p).size;
    if (size < MIN_BYTES || size > MAX_BYTES) continue;
    const text = fs.readFileSync(p, "utf8");
    if (!usable(text)) continue;
    out.push({ name: prefix + path.relative(root, p), lang: langOf(p), text });
  }
  return out;
}

export function pythonStdlib(): string | undefined {
  const r = spawnSync("python3", ["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"], {
    encoding: "utf8",
  });
  const dir = r.status === 0 ? r.stdout.trim() : "";
  return dir && fs.existsSync(dir) ? dir : undefined;
}

export function loadCorpus(rng: Rng, repoRoot: string, perLanguageFamily: number): SourceFile[] {
  const files: SourceFile[] = [];
  const stdlib = pythonStdlib();
  if (stdlib) {
    const paths: string[] = [];
    walk(stdlib, [".py"], paths);
    files.push(...sample(paths, perLanguageFamily, rng, stdlib, "stdlib/", () => "py"));
  }
  const nm = path.join(repoRoot, "node_modules");
  const paths: string[] = [];
  for (const pkg of JS_PACKAGES) walk(path.join(nm, pkg), [".ts", ".js", ".mjs", ".cjs", ".mts"], paths);
  files.push(...sample(paths, perLanguageFamily, rng, nm, "node_modules/", (p) => (/\.m?ts$/.test(p) ? "ts" : "js")));
  return files;
}
