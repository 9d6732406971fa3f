// The outside check's corpus: real files nobody on this project wrote, from
// other places than the main benchmark's (bench/edit-robustness/corpus.ts takes
// a fixed list of ten node_modules packages and the stdlib without its tests):
//   - Python: the whole standard library as installed, tests included, plus
//     third-party packages in site-packages;
//   - JavaScript / TypeScript / .d.ts: every package in node_modules *except*
//     the main benchmark's ten;
//   - the other languages rt validates, wherever this machine has real files:
//     JSON (package.json and data files), YAML (CI and tool configs), TOML
//     (pyproject.toml, tomllib's own test data, rustup manifests), C (Python
//     extension modules, SQLite's test extension), HTML, Java (the JDK's
//     src.zip), Go (git's contrib), Rust.
// Files are picked with a seeded generator; a language with no file here is
// simply absent from the run (the report lists what was found).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import type { Rng } from "../rng.ts";

export type OLang = "py" | "js" | "mjs" | "ts" | "dts" | "json" | "yaml" | "toml" | "html" | "c" | "java" | "go" | "rs";

export interface OFile {
  /** Where it came from, for reports. */
  name: string;
  lang: OLang;
  /** The file name the case is written under (its extension picks rt's language). */
  base: string;
  /** LF-only UTF-8 text without a BOM (the CRLF, BOM and Latin-1 classes add those on purpose). */
  text: string;
}

export const PYLIB = "/root/.pyenv/versions/3.11.7/lib/python3.11";
/** The main benchmark's packages: left out, so the two corpora do not overlap. */
const MAIN_BENCH_PACKAGES = [
  "diff",
  "@types/node",
  "typescript",
  "zod",
  "glob",
  "minimatch",
  "semver",
  "pg",
  "pg-protocol",
  "tsx",
];
const SKIP_DIRS = new Set(["__pycache__", ".git", ".bin"]);

/** A directory's entries sorted by name, read once per process (node_modules is walked for several languages). */
const entryCache = new Map<string, fs.Dirent[] | null>();
function sortedEntries(dir: string): fs.Dirent[] | null {
  let entries = entryCache.get(dir);
  if (entries !== undefined) return entries;
  try {
    entries = fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    entries = null;
  }
  entryCache.set(dir, entries);
  return entries;
}

function walk(
  dir: string,
  accept: (name: string) => boolean,
  out: string[],
  depth = 0,
  skip: (p: string) => boolean = () => false,
): void {
  if (depth > 12) return;
  const entries = sortedEntries(dir);
  if (entries === null) return;
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && !skip(p)) walk(p, accept, out, depth + 1, skip);
    } else if (e.isFile() && accept(e.name)) out.push(p);
  }
}

function usable(text: string, minLines: number, maxLine: number): boolean {
  if (text.includes("\r") || text.includes("\u0000") || text.charCodeAt(0) === 0xfeff) return false;
  const lines = text.split("\n");
  if (lines.length < minLines) return false;
  return !lines.some((l) => l.length > maxLine);
}

interface PickSpec {
  lang: OLang;
  count: number;
  minBytes?: number;
  maxBytes?: number;
  minLines?: number;
  maxLine?: number;
  prefix: string;
  root: string;
  base?: (p: string) => string;
}

function pick(paths: string[], rng: Rng, spec: PickSpec): OFile[] {
  const out: OFile[] = [];
  const pool = [...paths];
  const { minBytes = 800, maxBytes = 150_000, minLines = 20, maxLine = 300 } = spec;
  while (out.length < spec.count && pool.length > 0) {
    const p = pool.splice(rng.int(pool.length), 1)[0];
    let size: number;
    try {
      size = fs.statSync(p).size;
    } catch {
      continue;
    }
    if (size < minBytes || size > maxBytes) continue;
    const buf = fs.readFileSync(p);
    const text = buf.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(buf)) continue; // not UTF-8
    if (!usable(text, minLines, maxLine)) continue;
    out.push({
      name: spec.prefix + path.relative(spec.root, p),
      lang: spec.lang,
      base: spec.base ? spec.base(p) : path.basename(p),
      text,
    });
  }
  return out;
}

/** Files whose longest line is long (bundles, generated data): for the long-line class. */
export function longLineFiles(repoRoot: string, rng: Rng, count: number): OFile[] {
  const nm = path.join(repoRoot, "node_modules");
  const paths: string[] = [];
  walk(
    nm,
    (n) => /\.(js|json)$/.test(n),
    paths,
    0,
    (p) => MAIN_BENCH_PACKAGES.some((m) => p === path.join(nm, m)),
  );
  const out: OFile[] = [];
  const pool = [...paths];
  while (out.length < count && pool.length > 0) {
    const p = pool.splice(rng.int(pool.length), 1)[0];
    const size = fs.statSync(p).size;
    if (size < 2_000 || size > 400_000) continue;
    const text = fs.readFileSync(p, "utf8");
    if (text.includes("\r") || text.charCodeAt(0) === 0xfeff) continue;
    const lines = text.split("\n");
    if (lines.length < 3 || !lines.some((l) => l.length >= 1_500)) continue;
    out.push({
      name: "node_modules/" + path.relative(nm, p),
      lang: p.endsWith(".json") ? "json" : "js",
      base: path.basename(p),
      text,
    });
  }
  return out;
}

let javaDir: string | undefined;

/** Java sources of the JDK (src.zip), a few packages extracted once to a temp directory. */
function javaSources(): string[] {
  const zips = ["/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip", "/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip"];
  const zip = zips.find((z) => {
    try {
      return fs.statSync(z).isFile();
    } catch {
      return false;
    }
  });
  if (!zip) return [];
  if (!javaDir) {
    javaDir = fs.mkdtempSync(path.join(os.tmpdir(), "rt-outside-java-"));
    const r = spawnSync(
      "unzip",
      [
        "-q",
        "-o",
        zip,
        "java.base/java/util/*.java",
        "java.base/java/io/*.java",
        "java.base/java/text/*.java",
        "-d",
        javaDir,
      ],
      { encoding: "utf8" },
    );
    if (r.status !== 0 && r.status !== 11) return [];
    process.on("exit", () => fs.rmSync(javaDir!, { recursive: true, force: true }));
  }
  const out: string[] = [];
  walk(javaDir, (n) => n.endsWith(".java"), out);
  return out;
}

export interface CorpusCounts {
  py: number;
  js: number;
  other: number;
}

/** The corpus: `counts.py` Python files, `counts.js` JS/TS files, up to `counts.other` files per other language. */
export function loadOutsideCorpus(rng: Rng, repoRoot: string, counts: CorpusCounts): OFile[] {
  const files: OFile[] = [];
  const py: string[] = [];
  walk(
    PYLIB,
    (n) => n.endsWith(".py"),
    py,
    0,
    (p) =>
      p.includes("/site-packages/") &&
      !/site-packages\/(attr|click|flask|jedi|hypothesis|docutils|dateutil|_pytest|graphql|idna|cryptography)(\/|$)/.test(
        p.slice(p.indexOf("site-packages/")),
      ),
  );
  files.push(...pick(py, rng, { lang: "py", count: counts.py, prefix: "stdlib/", root: PYLIB, minLines: 30 }));

  const nm = path.join(repoRoot, "node_modules");
  const js: string[] = [];
  walk(
    nm,
    (n) => /\.(js|cjs|mjs|ts|mts|cts)$/.test(n) && !n.endsWith(".min.js"),
    js,
    0,
    (p) => MAIN_BENCH_PACKAGES.some((m) => p === path.join(nm, m)),
  );
  const langOf = (p: string): OLang =>
    p.endsWith(".d.ts") || p.endsWith(".d.mts") || p.endsWith(".d.cts")
      ? "dts"
      : /\.[mc]?ts$/.test(p)
        ? "ts"
        : p.endsWith(".mjs")
          ? "mjs"
          : "js";
  const byLang = new Map<OLang, string[]>();
  for (const p of js) byLang.set(langOf(p), [...(byLang.get(langOf(p)) ?? []), p]);
  const share: Array<[OLang, number]> = [
    ["js", 0.4],
    ["mjs", 0.15],
    ["ts", 0.15],
    ["dts", 0.3],
  ];
  for (const [lang, f] of share)
    files.push(
      ...pick(byLang.get(lang) ?? [], rng, {
        lang,
        count: Math.max(1, Math.round(counts.js * f)),
        prefix: "node_modules/",
        root: nm,
        minLines: 30,
      }),
    );

  const other = (lang: OLang, roots: string[], accept: (n: string) => boolean, extra: Partial<PickSpec> = {}): void => {
    const paths: string[] = [];
    for (const r of roots) walk(r, accept, paths, 0, (p) => p.includes("/invalid"));
    files.push(...pick(paths, rng, { lang, count: counts.other, prefix: "", root: "/", minLines: 12, ...extra }));
  };
  other("json", [nm, path.join(PYLIB, "site-packages", "botocore", "data", "sso")], (n) => n.endsWith(".json"), {
    maxBytes: 60_000,
  });
  other(
    "yaml",
    ["/usr/lib/google-cloud-sdk/platform/gsutil/third_party", "/usr/share/doc/python3-yaml", nm],
    (n) => /\.ya?ml$/.test(n),
    { minLines: 10 },
  );
  other(
    "toml",
    [
      "/usr/lib/google-cloud-sdk/platform/gsutil/third_party",
      "/usr/lib/node_modules/npm/node_modules/node-gyp",
      path.join(PYLIB, "test", "test_tomllib"),
      "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/error_codes",
    ],
    (n) => n.endsWith(".toml"),
    { minLines: 8, minBytes: 200, maxBytes: 60_000 },
  );
  other("c", [path.join(PYLIB, "site-packages"), path.join(nm, "better-sqlite3", "deps")], (n) => n.endsWith(".c"), {
    maxBytes: 120_000,
  });
  other("html", [path.join(PYLIB, "site-packages"), "/usr/share/doc"], (n) => /\.html?$/.test(n), {
    maxBytes: 60_000,
    maxLine: 400,
  });
  other("go", ["/usr/share/doc/git/contrib"], (n) => n.endsWith(".go"));
  other("rs", ["/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/error_codes"], (n) =>
    n.endsWith(".rs"),
  );
  const java = javaSources();
  if (java.length)
    files.push(
      ...pick(java, rng, { lang: "java", count: counts.other, prefix: "jdk/", root: javaDir!, maxBytes: 80_000 }),
    );
  return files;
}
