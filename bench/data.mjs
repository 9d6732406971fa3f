// Benchmark data, generated once into bench/data/ (gitignored) and reused while
// its manifest says it is complete and the files still have the recorded sizes.
// Everything is deterministic (a seeded PRNG), so every machine benchmarks the
// same bytes.
import fs from "node:fs";
import path from "node:path";

/** Bump when the generated content changes: old data is then regenerated. */
export const DATA_VERSION = 1;

export const LOG_LINES = 12_000_000;
export const LOG_BYTES = 1024 * 1024 * 1024;
export const TREE_FILES = 20_000;
export const IDS_LINES = 100_000;

/** xorshift32: fast, deterministic, good enough for plausible-looking data. */
export function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return {
    int: (n) => next() % n,
    pick: (a) => a[next() % a.length],
    chance: (p) => next() / 4294967296 < p,
  };
}

const WORDS = (
  "request response cache session user account order invoice payment token queue worker job batch retry timeout " +
  "connection pool client server handler router middleware config option value index record row table column " +
  "schema migration event message stream buffer chunk frame packet socket channel lock mutex thread task future " +
  "promise callback listener observer state store action reducer effect signal node edge graph tree path file " +
  "directory module package version build deploy release metric counter gauge histogram trace span log level"
).split(" ");

// ---------------------------------------------------------------------------
// The large log: exactly LOG_LINES lines and exactly LOG_BYTES bytes.

const LEVELS = ["INFO", "INFO", "INFO", "INFO", "DEBUG", "DEBUG", "WARN", "ERROR"];
const SERVICES = ["api", "auth", "billing", "search", "worker", "gateway", "scheduler", "mailer"];
const METHODS = ["GET", "GET", "GET", "POST", "PUT", "DELETE"];

/**
 * Writes the log in 8 MiB blocks. Each line's length is steered so that the
 * file ends exactly at LOG_BYTES after exactly LOG_LINES lines (lines vary
 * from about 60 to 120 bytes around the mean of ~89.5).
 */
export function generateLog(file, onProgress) {
  const r = rng(0x5eed1);
  const fd = fs.openSync(file, "w");
  const blockSize = 8 * 1024 * 1024;
  const block = Buffer.allocUnsafe(blockSize + 4096);
  let used = 0;
  let written = 0;
  let t = Date.UTC(2024, 0, 1);
  try {
    for (let i = 0; i < LOG_LINES; i++) {
      t += r.int(40);
      const remainingLines = LOG_LINES - i;
      const remainingBytes = LOG_BYTES - written - used;
      const mean = remainingBytes / remainingLines;
      // Target length of this line including its newline.
      const target = remainingLines === 1 ? remainingBytes : Math.round(mean + r.int(61) - 30);
      const head =
        `${new Date(t).toISOString()} ${r.pick(LEVELS).padEnd(5)} [${r.pick(SERVICES)}-${r.int(16)}] ` +
        `${r.pick(METHODS)} /${r.pick(WORDS)}/${r.int(100000)} status=${r.chance(0.95) ? 200 : r.pick([404, 500, 503])} ` +
        `dur=${r.int(900)}ms`;
      let line = head;
      while (line.length < target - 1) line += ` ${r.pick(WORDS)}`;
      if (line.length > target - 1) line = line.slice(0, Math.max(target - 1, 1));
      used += block.write(line, used, "latin1");
      block[used++] = 10;
      if (used >= blockSize) {
        fs.writeSync(fd, block, 0, used);
        written += used;
        used = 0;
        onProgress?.(written / LOG_BYTES);
      }
    }
    if (used) fs.writeSync(fd, block, 0, used);
    written += used;
  } finally {
    fs.closeSync(fd);
  }
  if (written !== LOG_BYTES) throw new Error(`log generator wrote ${written} bytes, expected ${LOG_BYTES}`);
}

// ---------------------------------------------------------------------------
// The source tree: TREE_FILES files of TypeScript, Python, Go and Markdown in a
// monorepo-like layout (packages/<pkg>/src/<area>/<file>), 1-12 KB each.

const EXT_WEIGHTS = [
  ["ts", 50],
  ["py", 25],
  ["go", 15],
  ["md", 10],
];

function camel(a, b) {
  return a + b[0].toUpperCase() + b.slice(1);
}

function tsFile(r, name, lines) {
  const out = [
    `// ${name}: ${r.pick(WORDS)} ${r.pick(WORDS)} helpers`,
    `import { ${camel(r.pick(WORDS), r.pick(WORDS))} } from "../${r.pick(WORDS)}/index.js";`,
    "",
  ];
  while (out.length < lines) {
    const fn = camel(r.pick(WORDS), r.pick(WORDS));
    out.push(`export async function ${fn}(${r.pick(WORDS)}: ${r.chance(0.5) ? "string" : "number"}, options = {}) {`);
    const body = 3 + r.int(12);
    for (let k = 0; k < body; k++) {
      const a = r.pick(WORDS);
      const b = r.pick(WORDS);
      const roll = r.int(10);
      if (roll === 0) out.push(`  // TODO: handle ${a} ${b} when the ${r.pick(WORDS)} is empty`);
      else if (roll === 1) out.push(`  if (!${a}) throw new Error("missing ${a} for ${b}");`);
      else if (roll === 2) out.push(`  logger.debug("${a} ${b}", { ${a}, ${b}: options.${b} });`);
      else if (roll === 3) out.push(`  for (const ${a} of ${b}s) await ${camel(a, b)}(${a});`);
      else out.push(`  const ${camel(a, b)} = await this.${r.pick(WORDS)}.${camel("get", b)}(${a}, ${r.int(1000)});`);
    }
    out.push("}", "");
  }
  return out.join("\n");
}

function pyFile(r, name, lines) {
  const out = [
    `"""${name}: ${r.pick(WORDS)} ${r.pick(WORDS)} utilities."""`,
    `import ${r.pick(WORDS)}`,
    `from .${r.pick(WORDS)} import ${r.pick(WORDS)}`,
    "",
  ];
  while (out.length < lines) {
    out.push(`def ${r.pick(WORDS)}_${r.pick(WORDS)}(${r.pick(WORDS)}, ${r.pick(WORDS)}=None):`);
    const body = 2 + r.int(10);
    for (let k = 0; k < body; k++) {
      const a = r.pick(WORDS);
      const b = r.pick(WORDS);
      const roll = r.int(10);
      if (roll === 0) out.push(`    # TODO: handle ${a} ${b} when the ${r.pick(WORDS)} is empty`);
      else if (roll === 1) out.push(`    if not ${a}:\n        raise ValueError("missing ${a} for ${b}")`);
      else if (roll === 2) out.push(`    logger.debug("${a} %s", ${b})`);
      else out.push(`    ${a}_${b} = self.${r.pick(WORDS)}.get_${b}(${a}, ${r.int(1000)})`);
    }
    out.push(`    return ${r.pick(WORDS)}`, "");
  }
  return out.join("\n");
}

function goFile(r, name, lines) {
  const out = [`// Package ${r.pick(WORDS)} ${name}`, `package ${r.pick(WORDS)}`, "", `import "fmt"`, ""];
  while (out.length < lines) {
    const fn = camel(r.pick(WORDS), r.pick(WORDS));
    out.push(`func ${fn[0].toUpperCase() + fn.slice(1)}(${r.pick(WORDS)} string) error {`);
    const body = 2 + r.int(10);
    for (let k = 0; k < body; k++) {
      const a = r.pick(WORDS);
      const b = r.pick(WORDS);
      const roll = r.int(10);
      if (roll === 0) out.push(`\t// TODO: handle ${a} ${b} when the ${r.pick(WORDS)} is empty`);
      else if (roll === 1) out.push(`\tif ${a} == "" {\n\t\treturn fmt.Errorf("missing ${a} for ${b}")\n\t}`);
      else out.push(`\t${a}${b[0].toUpperCase() + b.slice(1)} := ${r.pick(WORDS)}.Get(${a}, ${r.int(1000)})`);
    }
    out.push("\treturn nil", "}", "");
  }
  return out.join("\n");
}

function mdFile(r, name, lines) {
  const out = [`# ${name}`, ""];
  while (out.length < lines) {
    const words = [];
    const n = 8 + r.int(20);
    for (let k = 0; k < n; k++) words.push(r.pick(WORDS));
    out.push(words.join(" ") + ".", "");
  }
  return out.join("\n");
}

const MAKERS = { ts: tsFile, py: pyFile, go: goFile, md: mdFile };

/** Writes the tree into `dir` (which must not exist yet). */
export function generateTree(dir) {
  const r = rng(0x7ee5);
  const total = EXT_WEIGHTS.reduce((s, [, w]) => s + w, 0);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "README.md"),
    "# bench tree\n\nGenerated source-like files for rt's grep benchmark.\n",
  );
  let made = 0;
  const pkgs = 40;
  for (let p = 0; made < TREE_FILES; p = (p + 1) % pkgs) {
    const pkg = `packages/${WORDS[p % WORDS.length]}-${p}`;
    for (let k = 0; k < 50 && made < TREE_FILES; k++) {
      let roll = r.int(total);
      let ext = "ts";
      for (const [e, w] of EXT_WEIGHTS) {
        if (roll < w) {
          ext = e;
          break;
        }
        roll -= w;
      }
      const area = ext === "md" ? "docs" : `src/${r.pick(WORDS)}`;
      const name = `${r.pick(WORDS)}_${made}.${ext}`;
      const lines = 20 + r.int(280);
      const file = path.join(dir, pkg, area, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, MAKERS[ext](r, name, lines) + "\n");
      made++;
    }
  }
}

// ---------------------------------------------------------------------------
// A 100,000-line source file for the line-ID reconcile benchmark, and a small
// Python file for the start-up benchmark.

export function idsFileText() {
  const r = rng(0x1d5);
  return tsFile(r, "big.ts", IDS_LINES).split("\n").slice(0, IDS_LINES).join("\n") + "\n";
}

export function smallPy() {
  return pyFile(rng(0x5a11), "small.py", 60) + "\n";
}
