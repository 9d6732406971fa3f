#!/usr/bin/env node
// rt's benchmarks: each target is measured against its reference tool
// in the same run, interleaved (rt, reference, rt, reference...) with the order
// alternating every round, and compared by medians. Writes BENCHMARKS.md.
//
//   npm run bench                 builds, then runs everything (a few minutes)
//   node bench/run.mjs --rounds 3 fewer rounds (a quick look; noisier)
//   node bench/run.mjs --only grep,small   (groups: small, large, large-edit, grep, tools, ids, edit, edit-speed, mcp, sandbox, lsp, peers)
//
// Data is generated once into bench/data/ (gitignored) and reused; see data.mjs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  DATA_VERSION,
  IDS_LINES,
  LOG_BYTES,
  LOG_LINES,
  TREE_FILES,
  generateLog,
  generateTree,
  idsFileText,
  smallPy,
} from "./data.mjs";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(BENCH, "..");
const DATA = path.join(BENCH, "data");
const NODE = process.execPath;
const PKG = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"));
const RT = path.join(REPO, typeof PKG.bin === "string" ? PKG.bin : PKG.bin.rt);
const RG = createRequire(path.join(REPO, "package.json")).resolve(
  `@vscode/ripgrep-${process.platform}-${process.arch}/bin/${process.platform === "win32" ? "rg.exe" : "rg"}`,
);

const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const ROUNDS = Number(opt("--rounds") ?? 0) || undefined;
const ONLY = opt("--only")?.split(",");
const wanted = (name) => !ONLY || ONLY.includes(name);

const log = (s) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------------------
// Setup: /usr/bin/time for peak memory (Debian package "time").

function ensureTimeTool() {
  if (fs.existsSync("/usr/bin/time")) return "/usr/bin/time";
  if (process.getuid?.() === 0 && fs.existsSync("/usr/bin/apt-get")) {
    log("installing Debian's time (for peak-memory measurements)...");
    spawnSync("apt-get", ["install", "-y", "-qq", "time"], { stdio: "ignore" });
    if (!fs.existsSync("/usr/bin/time")) {
      spawnSync("apt-get", ["update", "-qq"], { stdio: "ignore" });
      spawnSync("apt-get", ["install", "-y", "-qq", "time"], { stdio: "ignore" });
    }
  }
  return fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
}

// ---------------------------------------------------------------------------
// Data, generated once and reused while the manifest matches.

const dirs = {
  log: path.join(DATA, "log"),
  tree: path.join(DATA, "tree"),
  small: path.join(DATA, "small"),
  ids: path.join(DATA, "ids"),
};
const files = {
  log: path.join(dirs.log, "big.log"),
  small: path.join(dirs.small, "small.py"),
  ids: path.join(dirs.ids, "big.ts"),
};
const MANIFEST = path.join(DATA, "manifest.json");

function readManifest() {
  try {
    const m = JSON.parse(fs.readFileSync(MANIFEST, "utf8"));
    return m.version === DATA_VERSION ? m : { version: DATA_VERSION };
  } catch {
    return { version: DATA_VERSION };
  }
}

function countFiles(dir) {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === ".rt") continue;
    n += e.isDirectory() ? countFiles(path.join(dir, e.name)) : 1;
  }
  return n;
}

function ensureData(need) {
  fs.mkdirSync(DATA, { recursive: true });
  const m = readManifest();
  const save = () => fs.writeFileSync(MANIFEST, `${JSON.stringify(m, null, 2)}\n`);
  if (need.log) {
    const st = fs.existsSync(files.log) ? fs.statSync(files.log) : undefined;
    if (!(m.log && st && st.size === LOG_BYTES && st.mtimeMs === m.log.mtimeMs)) {
      log(`generating ${files.log} (1 GiB, ${LOG_LINES.toLocaleString("en")} lines; once, ~30 s)...`);
      fs.rmSync(dirs.log, { recursive: true, force: true });
      fs.mkdirSync(dirs.log, { recursive: true });
      const t = Date.now();
      generateLog(`${files.log}.tmp`);
      fs.renameSync(`${files.log}.tmp`, files.log);
      m.log = { bytes: LOG_BYTES, lines: LOG_LINES, mtimeMs: fs.statSync(files.log).mtimeMs };
      save();
      log(`  done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
  }
  if (need.tree) {
    const ok = m.tree && fs.existsSync(dirs.tree) && countFiles(dirs.tree) === m.tree.files;
    if (!ok) {
      log(`generating ${dirs.tree} (${TREE_FILES.toLocaleString("en")} source files; once)...`);
      fs.rmSync(dirs.tree, { recursive: true, force: true });
      generateTree(dirs.tree);
      m.tree = { files: countFiles(dirs.tree) };
      save();
    }
  }
  // Small files are rewritten every run (cheap, and the reconcile benchmark edits its file).
  fs.mkdirSync(dirs.small, { recursive: true });
  fs.writeFileSync(files.small, smallPy());
  fs.mkdirSync(dirs.ids, { recursive: true });
}

// ---------------------------------------------------------------------------
// Measuring.

/** Runs a command once; returns wall milliseconds, checking its exit status. */
function timed(c) {
  c.before?.();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(c.cmd, c.args, {
    cwd: c.cwd,
    env: { ...process.env, ...c.env },
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 1 << 30,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const okCodes = c.okCodes ?? [0];
  if (r.error || !okCodes.includes(r.status)) {
    throw new Error(`${c.label}: exit ${r.status} ${r.error ?? ""}\n${String(r.stderr).slice(0, 2000)}`);
  }
  c.check?.(r.stdout.toString("utf8"));
  return ms;
}

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/** Interleaves the commands for `rounds` rounds (order alternating) after one untimed warm-up each. */
function interleave(cmds, rounds) {
  const times = cmds.map(() => []);
  for (const c of cmds) timed(c); // warm-up: page cache, and checks the output
  for (let r = 0; r < rounds; r++) {
    const order = cmds.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) times[i].push(timed(cmds[i]));
  }
  return times.map((t) => ({ median: median(t), min: Math.min(...t), max: Math.max(...t), n: t.length }));
}

/** Peak resident memory of one run, in MiB, from /usr/bin/time -f %M (KiB). */
function peakRss(timeTool, c) {
  c.before?.();
  const r = spawnSync(timeTool, ["-f", "%M", c.cmd, ...c.args], {
    cwd: c.cwd,
    env: { ...process.env, ...c.env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines = r.stderr.toString().trim().split("\n");
  return Number(lines[lines.length - 1]) / 1024;
}

const rt = (root, args, extra = {}) => ({
  label: `rt ${args.join(" ")}`,
  cmd: NODE,
  args: [RT, ...args],
  cwd: root,
  env: { RT_ROOT: root, ...extra.env },
  ...extra,
});
const nodeE0 = { label: "node -e 0", cmd: NODE, args: ["-e", "0"] };

// ---------------------------------------------------------------------------
// The benchmarks. Each returns rows for the results table.

const rows = [];
const notes = [];

function row(r) {
  rows.push(r);
  const ratio = r.ratio !== undefined ? ` ratio ${r.ratio.toFixed(2)}` : "";
  log(
    `  ${r.name}: rt ${fmt(r.rt)}${r.refTime !== undefined ? ` vs ${fmt(r.refTime)}` : ""}${ratio} -> ${r.pass === undefined ? "info" : r.pass ? "PASS" : "FAIL"}`,
  );
}

const fmt = (v) => (typeof v === "number" ? `${v.toFixed(v < 10 ? 1 : 0)} ms` : String(v));

function benchLargeFile(timeTool) {
  log("large file: rt open big.log:11000000");
  const indexDir = path.join(dirs.log, ".rt", "index");
  const header = `--- big.log (lines 10999950-11000049 of ${LOG_LINES}) ---`;
  const check = (out) => {
    if (!out.startsWith(header)) throw new Error(`unexpected rt open output: ${out.slice(0, 200)}`);
  };
  const first = rt(dirs.log, ["open", "big.log:11000000"], {
    before: () => fs.rmSync(indexDir, { recursive: true, force: true }),
    check,
  });
  const sed = { label: "sed", cmd: "sed", args: ["-n", "11000000,11000099p;11000100q", files.log], cwd: dirs.log };
  const [a, b] = interleave([first, sed], ROUNDS ?? 7);
  row({
    name: "`rt open big.log:11000000`, first call (no index: `.rt/index` deleted before each run)",
    rt: a.median,
    ref: "`sed -n '11000000,11000099p;11000100q' big.log`",
    refTime: b.median,
    ratio: a.median / b.median,
    target: "<= 1.0x",
    pass: a.median / b.median <= 1.0,
  });
  const cached = rt(dirs.log, ["open", "big.log:11000000"], { check });
  timed(cached); // builds the index once
  const [c, d] = interleave([cached, nodeE0], ROUNDS ?? 21);
  row({
    name: "`rt open big.log:11000000`, later calls (index cached)",
    rt: c.median,
    ref: "`node -e 0`",
    refTime: d.median,
    ratio: c.median / d.median,
    target: "<= 1.5x",
    pass: c.median / d.median <= 1.5,
  });
  if (timeTool) {
    const runs = 3;
    let firstMax = 0;
    let cachedMax = 0;
    for (let i = 0; i < runs; i++) firstMax = Math.max(firstMax, peakRss(timeTool, first));
    for (let i = 0; i < runs; i++) cachedMax = Math.max(cachedMax, peakRss(timeTool, cached));
    const baseline = peakRss(timeTool, nodeE0);
    for (const [name, v] of [
      ["first call", firstMax],
      ["cached call", cachedMax],
    ]) {
      row({
        name: `peak memory (RSS) of \`rt open big.log:11000000\`, ${name} (max of ${runs})`,
        rt: `${v.toFixed(0)} MiB`,
        ref: "`node -e 0`",
        refTime: `${baseline.toFixed(0)} MiB`,
        target: "< 150 MiB",
        pass: v < 150,
      });
    }
  } else {
    notes.push(
      "Peak memory was not measured: /usr/bin/time (Debian package `time`) is missing and could not be installed.",
    );
  }
}

/**
 * Editing one line of a 32 MB file (was once 15 s and 2 GB): `rt edit`
 * (the CLI), `rt call edit_lines` and `rt call edit`, each a real change (the
 * line toggles between two values, so every run writes), with the line IDs of
 * the previous run's version already stored (the everyday case). Time is the
 * median wall time of the whole command; memory the peak RSS of the process.
 * Mistake model: the time is spent on the file's size (parsing, validating,
 * diffing, re-encoding, hashing, journaling all of it); a file whose edit
 * touches its last line or its first takes other paths (both are in the tests).
 */
function benchLargeEdit(timeTool) {
  log("large-file edit: one line of a 32 MB file");
  const dir = path.join(DATA, "large-edit");
  const file = path.join(dir, "big.py");
  const target = 32 * 1024 * 1024;
  if (!fs.existsSync(file) || Math.abs(fs.statSync(file).size - target) > 1024) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const parts = [];
    let size = 0;
    for (let i = 1; size < target; i++) {
      const l = `value_${i} = ${i} * 2  # line ${i} of generated data\n`;
      parts.push(l);
      size += l.length;
    }
    fs.writeFileSync(file, parts.join(""));
  }
  const lineCount = fs.readFileSync(file, "utf8").split("\n").length - 1;
  const toggled = (make) => {
    // Each case toggles its own line: 1, 0, 1... from the 0 form set below.
    let flip = 0;
    const c = rt(dir, [], {
      check: (out) => {
        if (!/✓ Edited big\.py/.test(out)) throw new Error(`unexpected output: ${out.slice(0, 300)}`);
      },
    });
    c.before = () => {
      flip ^= 1;
      const m = make(flip);
      c.cmd = m.cmd ?? NODE;
      c.args = m.args;
    };
    return c;
  };
  const cases = [
    [
      "`rt edit big.py 5000 5000` (the CLI; new line on stdin)",
      toggled((f) => ({
        cmd: "sh",
        args: ["-c", `printf 'value_5000 = ${f}\\n' | "$0" "$1" edit big.py 5000 5000`, NODE, RT],
      })),
    ],
    [
      "`rt call edit_lines` (replace line 300000)",
      toggled((f) => ({
        args: [
          RT,
          "call",
          "edit_lines",
          "--args",
          JSON.stringify({
            path: "big.py",
            command: "replace",
            start_line: 300000,
            new_content: `value_300000 = ${f}`,
          }),
        ],
      })),
    ],
    [
      "`rt call edit` (old_string/new_string, one line near the end)",
      toggled((f) => ({
        args: [
          RT,
          "call",
          "edit",
          "--args",
          JSON.stringify({
            path: "big.py",
            old_string: `value_${lineCount - 10} = ${1 - f}\n`,
            new_string: `value_${lineCount - 10} = ${f}\n`,
          }),
        ],
      })),
    ],
  ];
  // Every toggled line starts in its 0 form (the generated text, or what an earlier run left),
  // so that each timed run changes the file.
  const lines = fs.readFileSync(file, "utf8").split("\n");
  for (const n of [5000, 300000, lineCount - 10]) lines[n - 1] = `value_${n} = 0`;
  fs.writeFileSync(file, lines.join("\n"));
  // Written behind rt's back: what an earlier run left in .rt/ would (rightly) call the numbers stale.
  fs.rmSync(path.join(dir, ".rt"), { recursive: true, force: true });
  for (const [name, c] of cases) {
    timed(c); // stores the line IDs of this version (a first edit of a file never read also makes them)
    const times = [];
    for (let r = 0; r < (ROUNDS ?? 5); r++) times.push(timed(c));
    const ms = median(times);
    row({
      name: `${name}, a 32 MB file of ${lineCount.toLocaleString("en")} lines`,
      rt: ms,
      ref: "",
      refTime: undefined,
      target: "< 1000 ms",
      pass: ms < 1000,
    });
    if (timeTool) {
      let peak = 0;
      for (let i = 0; i < 3; i++) peak = Math.max(peak, peakRss(timeTool, c));
      row({
        name: `peak memory (RSS) of the same (max of 3)`,
        rt: `${peak.toFixed(0)} MiB`,
        ref: "",
        refTime: undefined,
        target: "< 200 MiB",
        pass: peak < 200,
      });
    }
  }
}

/** The grep patterns: a rare one, a moderate one (a realistic search) and a very common one. */
const PATTERNS = [
  { kind: "rare", pattern: "missing socket for mutex" },
  { kind: "moderate", pattern: "getMutex\\(" },
  { kind: "common", pattern: "TODO: handle" },
];

/**
 * `rt grep` cold against what any Node program that runs ripgrep pays: Node's
 * own start (`node -e 0`) plus `rg -n` reading all of its output, each measured
 * in the same run (interleaved), the reference being the sum of their medians.
 */
function benchGrep() {
  log("grep: rt grep PATTERN on 20,000 files");
  for (const { kind, pattern } of PATTERNS) {
    // The number of matching lines, as rg counts them (rt must report the same).
    const all = spawnSync(RG, ["-n", pattern], {
      cwd: dirs.tree,
      maxBuffer: 1 << 30,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const total = all.stdout.toString().split("\n").filter(Boolean).length;
    const check = (out) => {
      const m = /showing 200 of ([\d,]+) match/.exec(out);
      const n = m ? Number(m[1].replace(/,/g, "")) : out.split("\n").filter((l) => l && !l.startsWith("...")).length;
      if (n !== total) throw new Error(`rt grep ${pattern}: reports ${n} matches, rg finds ${total}`);
    };
    const rtCmd = rt(dirs.tree, ["grep", pattern], { check });
    const rgCmd = { label: "rg -n", cmd: RG, args: ["-n", pattern], cwd: dirs.tree, okCodes: [0, 1] };
    const rgHead = {
      label: "rg -n | head",
      cmd: "sh",
      args: ["-c", `"$0" -n "$1" | head -n 200`, RG, pattern],
      cwd: dirs.tree,
    };
    const [a, b, c, d] = interleave([rtCmd, rgCmd, nodeE0, rgHead], ROUNDS ?? 11);
    const ref = b.median + c.median;
    row({
      name: `\`rt grep '${pattern}'\` cold (${kind}: ${total.toLocaleString("en")} matching lines)`,
      rt: a.median,
      ref: `\`node -e 0\` + \`rg -n '${pattern}'\` (all output read)`,
      refTime: ref,
      ratio: a.median / ref,
      target: "<= 1.5x",
      pass: a.median / ref <= 1.5,
      extra: { rg: b.median, node: c.median, rgHead: d.median },
    });
  }
}

/**
 * The path the agent and the MCP server take: many greps in one process. 20
 * `rt call --batch` lines (the three patterns in turn) against 20 `rg -n` runs
 * plus one `node -e 0`. The target's reference sends each run's output to
 * /dev/null, which nothing reads; for information, the same runs with their
 * output read (piped to cat), as the cold rows read it.
 */
function benchGrepBatch() {
  log("grep: 20 greps in one rt call --batch");
  const order = Array.from({ length: 20 }, (_, i) => PATTERNS[i % PATTERNS.length].pattern);
  const input = path.join(DATA, "grep-batch.jsonl");
  fs.writeFileSync(input, `${order.map((p) => JSON.stringify({ tool: "grep", args: { pattern: p } })).join("\n")}\n`);
  const rtBatch = {
    label: "rt call --batch (20 greps)",
    cmd: "sh",
    args: ["-c", `"$0" "$1" call --batch < "$2"`, NODE, RT, input],
    cwd: dirs.tree,
    env: { RT_ROOT: dirs.tree },
    check: (out) => {
      const lines = out.trim().split("\n");
      if (lines.length !== 20 || !lines.every((l) => JSON.parse(l).success))
        throw new Error(`rt call --batch: ${out.slice(0, 300)}`);
    },
  };
  const script = order.map((p) => `"$0" -n '${p.replace(/'/g, "'\\''")}' > /dev/null`).join("; ");
  const rgRuns = { label: "20 × rg -n", cmd: "sh", args: ["-c", `${script}; true`, RG], cwd: dirs.tree };
  const readScript = order.map((p) => `"$0" -n '${p.replace(/'/g, "'\\''")}' | cat > /dev/null`).join("; ");
  const rgRunsRead = { label: "20 × rg -n | cat", cmd: "sh", args: ["-c", `${readScript}; true`, RG], cwd: dirs.tree };
  const [a, b, c, d] = interleave([rtBatch, rgRuns, nodeE0, rgRunsRead], ROUNDS ?? 5);
  const ref = b.median + c.median;
  row({
    name: "20 greps in one process (`rt call --batch`, the three patterns in turn)",
    rt: a.median,
    ref: "20 `rg -n` runs (output to /dev/null) + one `node -e 0`",
    refTime: ref,
    ratio: a.median / ref,
    target: "<= 1.1x",
    pass: a.median / ref <= 1.1,
  });
  const refRead = d.median + c.median;
  row({
    name: "same, against runs whose output is read (for information)",
    rt: a.median,
    ref: "20 `rg -n \\| cat` runs + one `node -e 0`",
    refTime: refRead,
    ratio: a.median / refRead,
    target: "",
    pass: undefined,
  });
}

/**
 * What the tool descriptions cost: the bytes of `rt mcp`'s tools/list answer
 * (as sent over stdio), and the tool specs rt's agent sends with every model
 * request, in tokens as rt's own estimator counts them (4 characters a token).
 */
async function benchToolList() {
  log("tool list: rt mcp tools/list and the agent's tools per request");
  const root = dirs.small;
  const listBytes = (args, env = {}) => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    };
    const lines = [
      init,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    const r = spawnSync(NODE, [RT, "--root", root, "mcp", ...args], {
      input: `${lines}\n`,
      encoding: "utf8",
      env: { ...process.env, ...env },
      maxBuffer: 1 << 26,
    });
    const answer = r.stdout.split("\n").find((l) => l.includes('"id":2'));
    if (!answer) throw new Error(`rt mcp tools/list: no answer\n${r.stderr}`);
    return { bytes: Buffer.byteLength(answer), tools: JSON.parse(answer).result.tools.length };
  };
  const lean = listBytes([]);
  row({
    name: `\`rt mcp\` tools/list, default (${lean.tools} tools; no database configured)`,
    rt: `${lean.bytes.toLocaleString("en")} bytes`,
    ref: "",
    refTime: undefined,
    target: "<= 18 KB",
    pass: lean.bytes <= 18 * 1024,
  });
  const db = path.join(DATA, "bench.db");
  spawnSync("python3", [
    "-c",
    "import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute('create table if not exists t(x)')",
    db,
  ]);
  const withDb = listBytes([], { SQLITE_DB: db });
  row({
    name: `same, with a database connection (${withDb.tools} tools: the SQL tools too)`,
    rt: `${withDb.bytes.toLocaleString("en")} bytes`,
    ref: "",
    refTime: undefined,
    target: "",
    pass: undefined,
  });
  const seeded = listBytes(["--seed-names"]);
  row({
    name: `\`rt mcp --seed-names\` tools/list (${seeded.tools} tools: seed 000's names and compatibility tools too)`,
    rt: `${seeded.bytes.toLocaleString("en")} bytes`,
    ref: "",
    refTime: undefined,
    target: "",
    pass: undefined,
  });

  const lib = await import(pathToFileURL(path.join(REPO, "dist", "index.js")).href);
  const specs = (tools) =>
    tools.map((t) => ({ name: t.name, description: t.description, parameters: lib.jsonSchemaOf(t) }));
  const tokens = (list) =>
    list.reduce((n, t) => n + Math.ceil((t.name + t.description + JSON.stringify(t.parameters)).length / 4), 0);
  const all = specs(lib.TOOLS);
  row({
    name: `the agent's tools, sent with every model request (${all.length} tools, approval modes other than plan)`,
    rt: `${tokens(all).toLocaleString("en")} tokens (${JSON.stringify(all).length.toLocaleString("en")} bytes)`,
    ref: "",
    refTime: undefined,
    target: "",
    pass: undefined,
  });
  const readOnly = specs(lib.TOOLS.filter((t) => t.readOnly || ["bash_output", "kill_shell"].includes(t.name)));
  row({
    name: `same in plan mode (${readOnly.length} read-only tools)`,
    rt: `${tokens(readOnly).toLocaleString("en")} tokens`,
    ref: "",
    refTime: undefined,
    target: "",
    pass: undefined,
  });
  // What the agent itself sends (agentToolSpecs), default and `agent.tools: "lean"`, in the dev profile.
  const ws = lib.createWorkspace({ root, env: {} });
  const offered = lib.agentToolSpecs(ws, () => true, "default");
  row({
    name: `the agent's own request, default tool set (${offered.length} tools)`,
    rt: `${tokens(offered).toLocaleString("en")} tokens (${JSON.stringify(offered).length.toLocaleString("en")} bytes)`,
    ref: "",
    refTime: undefined,
    target: "",
    pass: undefined,
  });
  const leanSet = lib.agentToolSpecs(ws, () => true, "lean");
  row({
    name: `same with \`agent.tools: "lean"\` (${leanSet.map((t) => t.name).join(", ")}; one-sentence descriptions)`,
    rt: `${tokens(leanSet).toLocaleString("en")} tokens (${JSON.stringify(leanSet).length.toLocaleString("en")} bytes)`,
    ref: `${tokens(offered).toLocaleString("en")} tokens (default)`,
    refTime: undefined,
    ratio: tokens(leanSet) / tokens(offered),
    target: "",
    pass: undefined,
  });
}

function benchSmall() {
  log("start-up: rt open small.py:10");
  const state = path.join(dirs.small, ".rt");
  const check = (out) => {
    if (!out.startsWith("--- small.py (lines 1-59 of"))
      throw new Error(`unexpected rt open output: ${out.slice(0, 200)}`);
  };
  const cold = rt(dirs.small, ["open", "small.py:10"], {
    before: () => fs.rmSync(state, { recursive: true, force: true }),
    check,
  });
  const [a, b] = interleave([cold, nodeE0], ROUNDS ?? 31);
  // Node 22.1+ caches compiled code (module.enableCompileCache, src/cli.ts): the budget is tighter there.
  const budget = typeof createRequire(import.meta.url)("node:module").enableCompileCache === "function" ? 1.25 : 1.5;
  row({
    name: "`rt open small.py:10`, cold (no `.rt/` state)",
    rt: a.median,
    ref: "`node -e 0`",
    refTime: b.median,
    ratio: a.median / b.median,
    target: `<= ${budget}x`,
    pass: a.median / b.median <= budget,
  });
}

function benchReconcile() {
  log(`line IDs: reconcile of a ${IDS_LINES.toLocaleString("en")}-line file after a one-line change`);
  const original = idsFileText();
  const lines = original.split("\n");
  const mid = Math.floor(IDS_LINES / 2);
  let k = 0;
  const args = ["read", "big.ts", "--ids", "--offset", String(mid - 1), "--limit", "3"];
  const check = (out) => {
    if (!/\[LID:[a-z][0-9a-z]{3,5}\]/.test(out)) throw new Error(`no line IDs in rt read output: ${out.slice(0, 200)}`);
  };
  // Untimed set-up of each "after edit" run: restore the file, let rt assign IDs,
  // then change one line from outside rt (a new text each time).
  const primeCmd = rt(dirs.ids, args);
  const edited = rt(dirs.ids, args, {
    check,
    before: () => {
      fs.writeFileSync(files.ids, original);
      timed(primeCmd);
      const copy = [...lines];
      copy[mid - 1] = `${copy[mid - 1]} // edited ${++k}`;
      fs.writeFileSync(files.ids, copy.join("\n"));
    },
  });
  // The same call when nothing changed: IDs come from .rt/ids as they are.
  const cachedIds = rt(dirs.ids, args, { check });
  fs.rmSync(path.join(dirs.ids, ".rt"), { recursive: true, force: true });
  const [a, b] = interleave([edited, cachedIds], ROUNDS ?? 9);
  const reconcile = a.median - b.median;
  row({
    name: `line-ID reconcile after a one-line external edit (${IDS_LINES.toLocaleString("en")}-line file): \`rt read --ids\` after the edit minus the same call with IDs cached`,
    rt: reconcile,
    ref: "",
    refTime: undefined,
    target: "< 150 ms",
    pass: reconcile < 150,
  });
  row({
    name:
      "the whole CLI call `rt read big.ts --ids` after the edit (for information; unchanged file: " +
      fmt(b.median) +
      ")",
    rt: a.median,
    ref: "",
    refTime: undefined,
    target: "",
    pass: undefined,
  });
}

/** The edit engine's robustness benchmark: its own generator and report, summarized here. */
function benchEditRobustness() {
  log("edit robustness: node bench/edit-robustness/run.mjs (writes bench/edit-robustness/RESULTS.md)");
  const r = spawnSync(NODE, [path.join(BENCH, "edit-robustness", "run.mjs"), "--summary-json"], {
    cwd: REPO,
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`edit-robustness: exit ${r.status}\n${String(r.stderr).slice(0, 2000)}`);
  const summary = JSON.parse(r.stdout.trim().split("\n").pop());
  for (const [method, s] of Object.entries(summary.methods)) {
    row({
      name: `edit robustness, \`${method}\`: ${s.cases} generated edits with model mistakes (details: bench/edit-robustness/RESULTS.md)`,
      rt: `${s.wrong} applied wrongly; ${((100 * s.correct) / s.recoverable).toFixed(1)}% correct where recoverable`,
      ref: "",
      refTime: undefined,
      target: "0 wrong, >= 97% correct",
      pass: s.wrong === 0 && s.correct >= 0.97 * s.recoverable,
    });
  }
  if (summary.perClassTable) {
    sections.push(
      "## Edit robustness per mistake class",
      "",
      "Each cell: correct / rejected / wrong, for the cases of that class (bench/edit-robustness/RESULTS.md has the details and what each class is).",
      "",
      summary.perClassTable,
      "",
    );
  }
}

/** Warm validated edits through rt mcp: bench/edit-speed.mjs. */
async function benchEditSpeed() {
  log(
    "edit speed: warm validated edits of 5,000- and 1,000-line TypeScript files through rt mcp (bench/edit-speed.mjs)",
  );
  const { runEditSpeed, rows } = await import("./edit-speed.mjs");
  const r = await runEditSpeed({ rounds: ROUNDS ? Math.max(10, ROUNDS * 10) : 60 });
  for (const x of rows(r)) row({ ...x, ref: "", refTime: undefined });
}

/** The first sandboxed command of a process: bench/sandbox-start.mjs, against bubblewrap alone. */
async function benchSandbox() {
  log("sandbox: the first sandboxed command of a process against `bwrap --ro-bind / / true` (bench/sandbox-start.mjs)");
  const { runSandboxStart } = await import("./sandbox-start.mjs");
  const r = runSandboxStart({ rounds: ROUNDS ?? 11, log });
  const bare = r.bare.op;
  row({
    name: "first sandboxed command of a process: the `bash` tool running `true` in safe-read-only (probe answer cached for this user), from the call to its result",
    rt: r.first.op,
    ref: "`bwrap --ro-bind / / true` spawned from a fresh Node process",
    refTime: bare,
    ratio: r.first.op / bare,
    target: "<= 3x",
    pass: r.first.op / bare <= 3,
  });
  for (const [key, what] of [
    ["cold", "same, the very first time (no probe answer cached: bubblewrap is probed)"],
    ["pipeline", "same with `ls -la | head -n 3 && echo done` (a plain pipeline and list: no shell parser)"],
    ["parser", 'same with `echo "$HOME" | wc -c` (quotes and an expansion: the shell parser is loaded on first use)'],
    ["later", "a later sandboxed command (`true`) in the same process"],
  ]) {
    row({
      name: `${what} (for information)`,
      rt: r[key].op,
      ref: "`bwrap --ro-bind / / true`",
      refTime: bare,
      ratio: r[key].op / bare,
      target: "",
      pass: undefined,
    });
  }
}

/** The lsp tool's diagnostics of rt's own src/: bench/lsp.mjs, against `tsc --noEmit` on the same files. */
async function benchLsp() {
  log(
    "lsp: `lsp diagnostics src` (first call, server start included; then warm, after a one-file change) against `tsc --noEmit -p .` (bench/lsp.mjs)",
  );
  const { runLsp } = await import("./lsp.mjs");
  const r = runLsp({ rounds: ROUNDS ?? 5, log });
  const same = r.errors === r.tscErrors && r.warmErrors === r.tscErrors;
  row({
    name: `first \`lsp diagnostics src\` of a process on rt's own src/ (${r.files} files; typescript-language-server started, every file opened; ${r.errors} errors, tsc finds ${r.tscErrors})`,
    rt: r.cold,
    ref: "`tsc --noEmit -p .` on the same files, a fresh process",
    refTime: r.tsc,
    ratio: r.cold / r.tsc,
    target: "<= 2x, same errors",
    pass: r.cold / r.tsc <= 2 && same,
  });
  row({
    name: "warm `lsp diagnostics src` in the same process after one file changed (the server re-checks; answered from its state)",
    rt: r.warm,
    ref: "`tsc --noEmit -p .`",
    refTime: r.tsc,
    ratio: r.warm / r.tsc,
    target: "<= 0.5x, same errors",
    pass: r.warm / r.tsc <= 0.5 && same,
  });
}

/**
 * What each agent turn costs (docs/agent-costs.md): prompt caching over a scripted 10-request
 * Anthropic session (bench/prompt-cache.mjs; the scripted server's cache follows Anthropic's
 * prefix rule), the default request's tool definitions measured from that request, and the
 * first `edit` of an `rt mcp` process against its second (bench/mcp-first-edit.mjs).
 */
async function benchAgentCosts() {
  log(
    "agent costs: prompt caching over 10 scripted Anthropic requests (bench/prompt-cache.mjs); first edit through rt mcp (bench/mcp-first-edit.mjs)",
  );
  const { runPromptCache } = await import("./prompt-cache.mjs");
  const c = await runPromptCache();
  row({
    name: `scripted ${c.requests}-request Anthropic session: share of the input tokens of requests 2-${c.requests} read from the prompt cache`,
    rt: `${(100 * c.laterCacheReadShare).toFixed(1)}%`,
    ref: "",
    refTime: undefined,
    target: ">= 80%",
    pass: c.laterCacheReadShare >= 0.8,
  });
  row({
    name: `the default agent request's tool definitions, measured from the request (${c.tools} tools; the rest behind tool_search)`,
    rt: `${c.toolBytes.toLocaleString("en")} bytes`,
    ref: "",
    refTime: undefined,
    target: "<= 16,384 bytes",
    pass: c.toolBytes <= 16_384,
  });
  const { firstEdit } = await import("./mcp-first-edit.mjs");
  const e = await firstEdit(ROUNDS ?? 5);
  row({
    name: "first `edit` of an `rt mcp` process (stdio, SDK client; tools warmed while the client waits)",
    rt: e.firstMs,
    ref: "the second `edit` of the same process",
    refTime: e.secondMs,
    ratio: e.ratio,
    target: "<= 1.5x",
    pass: e.ratio <= 1.5,
  });
}

/**
 * The agent's edit round trip against Codex CLI's and Claude Code's (bench/peers.mjs), all driven by one
 * scripted model server through the same session. Skipped, with the reason, when the peers are not
 * installed in bench/peers/ (`node bench/peers.mjs --install` installs them from npm).
 */
async function benchPeers() {
  const { peersMissing, runPeers } = await import("./peers.mjs");
  const missing = peersMissing();
  if (missing) {
    log(`peers: skipped: ${missing} (install them with: node bench/peers.mjs --install)`);
    return;
  }
  log("peers: rt's agent, Codex CLI and Claude Code through one scripted session (bench/peers.mjs)");
  const r = await runPeers({ rounds: ROUNDS ?? 5, cli: RT, log });
  const s = r.summary;
  const peers = ["codex", "claude"].filter((t) => s[t].ok);
  for (const t of ["codex", "claude"])
    row({
      name: `edit round trip of ${s[t].label} (the same scripted session; ${s[t].ok}/${s[t].runs} runs landed)`,
      rt: "",
      ref: s[t].label,
      refTime: s[t].editMs,
    });
  for (const t of ["rt-anthropic", "rt-responses", "rt-no-lsp"]) {
    const ratio = s[t].editMs / r.fastestPeer;
    row({
      name: `edit round trip of ${s[t].label} on ${r.target.file} (${r.target.lines} lines; ${s[t].ok}/${s[t].runs} runs landed)`,
      rt: s[t].editMs,
      ref: `the faster of ${peers.map((p) => s[p].label).join(" and ")}`,
      refTime: r.fastestPeer,
      ratio,
      target: "<= 1.2x",
      pass: s[t].ok === s[t].runs && ratio <= 1.2,
    });
  }
}

/** Sections of BENCHMARKS.md written by benchmarks that have their own (after the table). */
const sections = [];

/** The MCP server under load: bench/mcp-load.mjs, summarized in the table, detailed in its own section. */
async function benchMcpLoad() {
  log("MCP load: 8 clients, 2,000 mixed calls over HTTP (bench/mcp-load.mjs)");
  const { runMcpLoad, markdownSection } = await import("./mcp-load.mjs");
  const r = await runMcpLoad({ calls: 2000, clients: 8, cli: RT, log });
  row({
    name: "`rt mcp --http` under load: 8 concurrent clients, 2,000 mixed read/grep/edit calls (details below): p50 / p99 latency",
    rt: `${fmt(r.all.p50)} / ${fmt(r.all.p99)}`,
    ref: "",
    refTime: undefined,
    target: "all answered, no file corrupted",
    pass: r.problems.length === 0 && r.answered === r.calls,
  });
  sections.push(markdownSection(r, new Date()), "");
}

// ---------------------------------------------------------------------------
// Report.

function version(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return (r.stdout || r.stderr || "").split("\n")[0].trim();
}

function writeReport(startedAt, load0) {
  const cpus = os.cpus();
  const cell = (v) => (v === undefined || v === "" ? "—" : fmt(v));
  const table = [
    "| benchmark | rt | reference | reference time | ratio | target | result |",
    "| --- | ---: | --- | ---: | ---: | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${cell(r.rt)} | ${r.ref || "—"} | ${cell(r.refTime)} | ${r.ratio !== undefined ? `${r.ratio.toFixed(2)}x` : "—"} | ${r.target || "—"} | ${r.pass === undefined ? "info" : r.pass ? "**pass**" : "**FAIL**"} |`,
    ),
  ];
  const grepRows = rows.filter((r) => r.extra?.rgHead !== undefined);
  const md = [
    "# rt benchmarks",
    "",
    "Generated by `npm run bench` (bench/run.mjs). Every ratio compares rt with its reference measured in the same",
    "run: the commands are interleaved (rt, reference, rt, reference, ... with the order reversed every other round),",
    "after one untimed warm-up run each, and each time is the median of the rounds. Times are wall-clock times of",
    "whole processes, start-up included, measured by Node's spawnSync with output read through a pipe.",
    "",
    `- Date: ${startedAt.toISOString()}`,
    `- Machine: ${cpus.length} cores (${cpus[0]?.model ?? "unknown CPU"}), ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`,
    `- Load average (1 min) at start / end: ${load0.toFixed(2)} / ${os.loadavg()[0].toFixed(2)} (other work was running on this machine: the numbers are noisy)`,
    // Node reads the extra certificates at every start (about 40 ms on this machine): every start-up ratio moves with it.
    `- NODE_EXTRA_CA_CERTS: ${process.env.NODE_EXTRA_CA_CERTS ? "set (every Node process, `node -e 0` included, reads it at start-up)" : "not set"}`,
    `- Node ${process.version}; ${version(RG, ["--version"])} (the binary rt itself runs); ${version("sed", ["--version"])}`,
    "",
    ...table,
    "",
    "## What is measured",
    "",
    `- **Large file**: bench/data/log/big.log, generated: exactly ${LOG_BYTES.toLocaleString("en")} bytes (1 GiB) and`,
    `  ${LOG_LINES.toLocaleString("en")} log lines of 60-120 bytes. The first call runs with \`.rt/index\` deleted before every`,
    "  run, so rt scans the whole file (it must: the header says `of 12000000`) and writes the index; the file itself",
    "  is in the page cache for rt and sed alike. Later calls read the cached index. Peak memory is the maximum",
    "  resident set size reported by `/usr/bin/time -f %M`.",
    `- **grep**: bench/data/tree, ${TREE_FILES.toLocaleString("en")} generated TypeScript, Python, Go and Markdown files`,
    "  (about 160 MB, 8 KB on average) in a monorepo-like layout. rt runs with its default cap of 200 matches, which",
    "  are the first 200 in path order (the same on every run), and counts every match to say how many it left out. The",
    "  reference is what any Node program that runs ripgrep pays: `node -e 0` plus `rg -n PATTERN` run to completion",
    "  with its whole output read, both measured in the same run (the sum of their medians). ripgrep has no global cap",
    "  that still counts what it leaves out (`-m` is per file); for information the table below also gives",
    "  `rg -n PATTERN | head -n 200`, where ripgrep may stop early and cannot report a total. rt's reported total is",
    "  checked against ripgrep's count on every run.",
    "- **20 greps in one process**: `rt call --batch` with 20 grep lines (the three patterns in turn), the path rt's",
    "  agent and MCP server take, against 20 `rg -n` runs one after another plus one `node -e 0`. The target's",
    "  reference sends ripgrep's output to /dev/null, which nothing reads (cheaper for ripgrep than a pipe or a file);",
    "  a second row, for information, reads it through a pipe (`| cat`), as the cold rows do.",
    "- **Tool list**: the bytes of `rt mcp`'s answer to tools/list as sent over stdio (a client sends the list to its",
    "  model with every request), and the tool specs rt's agent sends with every model request, in tokens by rt's own",
    "  estimate (4 characters a token).",
    "- **Start-up**: `rt open small.py:10` on a 61-line file with no `.rt/` state (deleted before every run).",
    "- **Line IDs**: bench/data/ids/big.ts, 100,000 lines. Before each timed run (untimed): the original text is",
    "  written, `rt read --ids` assigns IDs, then one line in the middle is changed from outside rt. The timed",
    "  `rt read big.ts --ids` then reconciles the stored IDs with the new text (a diff); the reconcile time is its",
    "  median minus the median of the same call on the unchanged file (IDs cached).",
    "- **Sandbox**: bench/sandbox-start.mjs. Each measurement is a fresh Node process that imports rt (untimed) and",
    "  times one operation: the `bash` tool's first call (`true`, safe-read-only, in a new temp workspace), or",
    "  spawning `bwrap --ro-bind / / true` and waiting for it. The sandboxed command runs `bash -c true` inside the",
    "  full sandbox (user, PID, network, IPC, UTS and cgroup namespaces, read-only `/`, private `/tmp` and `/run`,",
    "  fresh `/proc` and `/dev`, seccomp filter), after the structural check.",
    "",
    ...(grepRows.length
      ? [
          "### grep in detail",
          "",
          "| pattern | rt grep | node -e 0 | rg -n (all output) | rg -n \\| head -n 200 |",
          "| --- | ---: | ---: | ---: | ---: |",
          ...grepRows.map(
            (r) =>
              `| ${r.name.replace(/^`rt grep '(.*)'` cold /, "`$1` ")} | ${fmt(r.rt)} | ${fmt(r.extra.node)} | ${fmt(r.extra.rg)} | ${fmt(r.extra.rgHead)} |`,
          ),
          "",
        ]
      : []),
    ...sections,
    ...(notes.length ? ["## Notes", "", ...notes.map((n) => `- ${n}`), ""] : []),
  ];
  const extraFile = path.join(BENCH, "NOTES.md");
  if (fs.existsSync(extraFile)) md.push(fs.readFileSync(extraFile, "utf8").trim(), "");
  fs.writeFileSync(path.join(REPO, "BENCHMARKS.md"), md.join("\n"));
  log(`wrote ${path.join(REPO, "BENCHMARKS.md")}`);
}

// ---------------------------------------------------------------------------

const startedAt = new Date();
const load0 = os.loadavg()[0];
if (!fs.existsSync(RT)) throw new Error(`${RT} is missing: run npm run build first (npm run bench does)`);
const timeTool = wanted("large") || wanted("large-edit") ? ensureTimeTool() : undefined;
ensureData({ log: wanted("large"), tree: wanted("grep") });
if (wanted("small")) benchSmall();
if (wanted("large")) benchLargeFile(timeTool);
if (wanted("large-edit")) benchLargeEdit(timeTool);
if (wanted("grep")) benchGrep();
if (wanted("grep")) benchGrepBatch();
if (wanted("tools")) await benchToolList();
if (wanted("ids")) benchReconcile();
if (wanted("edit")) benchEditRobustness();
if (wanted("edit-speed")) await benchEditSpeed();
if (wanted("mcp")) await benchMcpLoad();
if (wanted("agent-costs")) await benchAgentCosts();
if (wanted("sandbox")) await benchSandbox();
if (wanted("lsp")) await benchLsp();
if (wanted("peers")) await benchPeers();
writeReport(startedAt, load0);
