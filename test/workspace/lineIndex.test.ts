// Large files: a byte-scanning line-offset index (a checkpoint every 1024 lines)
// makes any window cheap without loading the file; it is cached in .rt/index
// keyed on path, size and mtime, reused by later processes and rebuilt when the
// file changes. Files above LARGE_FILE_BYTES go through it in open/read/scroll.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { buildLineIndex, getLineIndex, readIndexedLines } from "../../src/workspace/lineIndex.ts";
import { createWorkspace, splitLines } from "../../src/workspace/workspace.ts";
import { StateStore } from "../../src/workspace/state.ts";
import { callTool } from "../../src/tools/policy.ts";
import { INDEX_CHECKPOINT_LINES, LARGE_FILE_BYTES } from "../../src/base/limits.ts";
import { CLI, rt, tempTree } from "../helpers.ts";

/** Writes `n` lines made by `make` to `file` in chunks, ending with `eol` (or not, for the last one when `finalNewline` is false). */
function writeLines(file: string, n: number, make: (i: number) => string, eol = "\n", finalNewline = true): void {
  const fd = fs.openSync(file, "w");
  try {
    const step = 50_000;
    for (let from = 1; from <= n; from += step) {
      const parts: string[] = [];
      for (let i = from; i < from + step && i <= n; i++) parts.push(make(i) + (i < n || finalNewline ? eol : ""));
      fs.writeSync(fd, parts.join(""));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Every window [start, start+count) read through the index equals the same slice of the naive split. */
async function checkWindows(file: string, starts: number[], counts: number[]) {
  const text = fs.readFileSync(file, "utf8");
  const naive = splitLines(text);
  const idx = await buildLineIndex(file, fs.statSync(file));
  assert.equal(idx.totalLines, naive.length, `${path.basename(file)}: line count`);
  for (const s of starts) {
    if (s < 1) continue;
    for (const c of counts) {
      assert.deepEqual(
        readIndexedLines(file, idx, s, c),
        naive.slice(s - 1, s - 1 + c),
        `${path.basename(file)}: lines ${s}+${c}`,
      );
    }
  }
  // Every checkpoint's offset is where its line really starts.
  const buf = fs.readFileSync(file);
  for (let k = 0; k < (naive.length ? idx.checkpointLines.length : 0); k++) {
    const off = idx.checkpointOffsets[k];
    assert.ok(off === 0 || buf[off - 1] === 10, `checkpoint ${k} starts a line`);
    const line = idx.checkpointLines[k];
    const end = buf.indexOf(10, off);
    const got = buf.toString("utf8", off, end === -1 ? buf.length : end).replace(/\r$/, "");
    assert.equal(got, naive[line - 1], `checkpoint ${k} is line ${line}`);
    if (k > 0) assert.ok(line > idx.checkpointLines[k - 1]);
  }
  return idx;
}

const EDGES = (total: number) => [
  1,
  2,
  3,
  1023,
  1024,
  1025,
  1026,
  2047,
  2048,
  2049,
  3000,
  total - 1024,
  total - 2,
  total - 1,
  total,
  total + 1,
  total + 100,
];

test("index windows equal the naive split: final newline or not, CRLF, blank lines, tiny files", async () => {
  const dir = tempTree();
  const cases: Array<[string, number, (i: number) => string, string, boolean]> = [
    ["plain.txt", 5000, (i) => `line ${i}`, "\n", true],
    ["nofinal.txt", 5000, (i) => `line ${i}`, "\n", false],
    ["crlf.txt", 4097, (i) => `crlf ${i}`, "\r\n", true],
    ["crlf-nofinal.txt", 4097, (i) => `crlf ${i}`, "\r\n", false],
    ["blanks.txt", 3100, (i) => (i % 3 ? "" : `x${"y".repeat(i % 200)}`), "\n", true],
    ["exact.txt", INDEX_CHECKPOINT_LINES * 2, (i) => `${i}`, "\n", true],
    ["one.txt", 1, () => "only", "\n", false],
    ["one-nl.txt", 1, () => "only", "\n", true],
  ];
  for (const [name, n, make, eol, fin] of cases) {
    writeLines(path.join(dir, name), n, make, eol, fin);
    await checkWindows(path.join(dir, name), EDGES(n), [0, 1, 7, 100, 1500, 6000]);
  }
  fs.writeFileSync(path.join(dir, "empty.txt"), "");
  const e = await checkWindows(path.join(dir, "empty.txt"), [1, 2], [1, 100]);
  assert.equal(e.totalLines, 0);
  fs.writeFileSync(path.join(dir, "nl.txt"), "\n");
  assert.equal((await checkWindows(path.join(dir, "nl.txt"), [1, 2], [1, 5])).totalLines, 1);
  fs.writeFileSync(path.join(dir, "nl3.txt"), "\n\n\n");
  assert.equal((await checkWindows(path.join(dir, "nl3.txt"), [1, 2, 3, 4], [1, 5])).totalLines, 3);
  fs.writeFileSync(path.join(dir, "utf8.txt"), "héllo\n日本語\n✓ done");
  await checkWindows(path.join(dir, "utf8.txt"), [1, 2, 3], [1, 3]);
});

test("index windows across read-chunk boundaries: lines longer than the 1 MiB read chunk", async () => {
  const dir = tempTree();
  const file = path.join(dir, "long.txt");
  writeLines(file, 3000, (i) =>
    i === 5
      ? "L".repeat(1_500_000)
      : i === 1100
        ? "M".repeat(2_200_000)
        : i % 500 === 0
          ? "w".repeat(700_000)
          : `short ${i}`,
  );
  await checkWindows(file, [1, 4, 5, 6, 499, 500, 501, 1024, 1025, 1099, 1100, 1101, 2999, 3000], [1, 2, 3, 600, 3000]);
  const nf = path.join(dir, "long-nofinal.txt");
  writeLines(nf, 1030, (i) => (i === 1030 ? "Z".repeat(1_300_000) : `s${i}`), "\n", false);
  await checkWindows(nf, [1, 1024, 1025, 1029, 1030], [1, 2, 10]);
});

test("index of a file larger than the 16 MiB scan chunk, with random line lengths: every checkpoint exact", async () => {
  const dir = tempTree();
  const file = path.join(dir, "random.txt");
  let seed = 12345;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const fd = fs.openSync(file, "w");
  let size = 0;
  let n = 0;
  while (size < 17.5 * 1024 * 1024) {
    const parts: string[] = [];
    for (let k = 0; k < 20_000; k++) {
      const r = rand();
      const len = r < 0.1 ? 0 : r < 0.12 ? 200 + Math.floor(rand() * 3000) : Math.floor(rand() * 120);
      parts.push(`${++n}:${"x".repeat(len)}${rand() < 0.05 ? "\r\n" : "\n"}`);
    }
    const chunk = parts.join("");
    fs.writeSync(fd, chunk);
    size += Buffer.byteLength(chunk);
  }
  fs.writeSync(fd, "tail without newline");
  fs.closeSync(fd);
  const idx = await checkWindows(file, [1, 1024, 1025, Math.floor(n / 2), n - 1, n, n + 1, n + 2], [1, 3, 2000]);
  assert.equal(idx.totalLines, n + 1);
  assert.equal(idx.checkpointLines.length, Math.floor(n / INDEX_CHECKPOINT_LINES) + 1);
});

// A file of fixed-width numbered lines: line i is easy to predict anywhere.
const fixed = (i: number) => `${String(i).padStart(10, "0")} ${"abcdefghij".repeat(4)}`; // 51 chars
const bigLineCount = Math.ceil((LARGE_FILE_BYTES + 2 * 1024 * 1024) / 52);

function bigTree() {
  const root = tempTree();
  writeLines(path.join(root, "big.log"), bigLineCount, fixed);
  writeLines(path.join(root, "big-nofinal.log"), bigLineCount, fixed, "\n", false);
  writeLines(path.join(root, "big-crlf.log"), bigLineCount, fixed, "\r\n", true);
  for (const f of ["big.log", "big-nofinal.log", "big-crlf.log"])
    assert.ok(fs.statSync(path.join(root, f)).size > LARGE_FILE_BYTES);
  return root;
}

test("open/read/scroll/grep-file on files above LARGE_FILE_BYTES: correct windows anywhere", async () => {
  const root = bigTree();
  const ws = createWorkspace({ root, env: {} });
  const N = bigLineCount;
  const mid = Math.floor(N / 2) + 17;
  for (const f of ["big.log", "big-nofinal.log", "big-crlf.log"]) {
    const first = await callTool(ws, "open", { path: f });
    assert.equal(
      first.output,
      [
        `--- ${f} (lines 1-100 of ${N}) ---`,
        ...Array.from({ length: 100 }, (_, k) => `${k + 1}: ${fixed(k + 1)}`),
      ].join("\n"),
    );
    const middle = await callTool(ws, "open", { path: `${f}:${mid}` });
    const mo = (middle.output as string).split("\n");
    assert.equal(mo[0], `--- ${f} (lines ${mid - 50}-${mid + 49} of ${N}) ---`);
    assert.equal(mo[51], `${mid}: ${fixed(mid)}`);
    assert.equal(mo.length, 101);
    const last = await callTool(ws, "open", { path: `${f}:${N}` });
    const lo = (last.output as string).split("\n");
    assert.equal(lo[0], `--- ${f} (lines ${N - 50}-${N} of ${N}) ---`);
    assert.equal(lo[lo.length - 1], `${N}: ${fixed(N)}`, "the last line, without a stray CR or an extra empty line");
    const range = await callTool(ws, "open", { path: `${f}:${N - 1}-${N + 5}` });
    assert.equal(
      range.output,
      `--- ${f} (lines ${N - 1}-${N} of ${N}) ---\n${N - 1}: ${fixed(N - 1)}\n${N}: ${fixed(N)}`,
    );
    const past = await callTool(ws, "open", { path: `${f}:${N + 51}` });
    assert.equal(past.success, false);
    assert.match(past.error as string, new RegExp(`past the end of ${f.replace(".", "\\.")} \\(${N} lines\\)`));
    const read = await callTool(ws, "read", { path: f, offset: mid, limit: 3 });
    assert.equal(
      read.output,
      `${String(mid).padStart(4)}: ${fixed(mid)}\n${mid + 1}: ${fixed(mid + 1)}\n${mid + 2}: ${fixed(mid + 2)}\n... (showing lines ${mid}-${mid + 2} of ${N}, limit 3; use offset=${mid + 3} to continue)`,
    );
    assert.equal(read.total_lines, N);
    const tail = await callTool(ws, "read", { path: f, offset: N - 1 });
    assert.equal(tail.output, `${N - 1}: ${fixed(N - 1)}\n${N}: ${fixed(N)}`);
    assert.equal(tail.truncated, false);
    const capped = await callTool(ws, "read", { path: f, offset: 1000 });
    assert.equal(capped.truncated, true);
    assert.ok(Buffer.byteLength(capped.output as string) < 52 * 1024);
    await callTool(ws, "open", { path: `${f}:1001` }); // lines 951-1050
    const s1 = await callTool(ws, "scroll", { path: f, direction: "+" });
    assert.match(
      s1.output as string,
      new RegExp(`^--- ${f.replace(".", "\\.")} \\(lines 1049-1148 of ${N}\\) ---\n1049: ${fixed(1049)}\n`),
    );
    const g = await callTool(ws, "grep-file", { pattern: `^${String(mid).padStart(10, "0")} `, path: f });
    assert.equal(g.output, `${mid}: ${fixed(mid)}`);
  }
});

test("the index is cached in .rt/index, reused by later processes, rebuilt when size or mtime change", async () => {
  const root = bigTree();
  const N = bigLineCount;
  const cache = path.join(root, ".rt", "index", `${StateStore.keyFor("big.log")}.json`);
  const r1 = await rt(["open", "big.log:10"], { cwd: root });
  assert.equal(r1.code, 0, r1.stderr);
  assert.match(r1.stdout, new RegExp(`^--- big\\.log \\(lines 1-59 of ${N}\\) ---\n`));
  const stored = JSON.parse(fs.readFileSync(cache, "utf8"));
  const st = fs.statSync(path.join(root, "big.log"));
  assert.equal(stored.path, "big.log");
  assert.equal(stored.size, st.size);
  assert.equal(stored.mtimeMs, st.mtimeMs);
  assert.equal(stored.totalLines, N);
  assert.equal(stored.checkpointLines.length, Math.ceil(N / INDEX_CHECKPOINT_LINES));

  // A later process uses the cached index: the cache file is not rewritten.
  const cached = fs.statSync(cache);
  const r2 = await rt(["open", "big.log:10"], { cwd: root });
  assert.match(r2.stdout, new RegExp(`^--- big\\.log \\(lines 1-59 of ${N}\\) ---\n`));
  const again = fs.statSync(cache);
  assert.deepEqual(
    [again.ino, again.mtimeMs],
    [cached.ino, cached.mtimeMs],
    "the cached index was reused, not rebuilt",
  );

  // A cache edited by anyone but rt (its MAC no longer matches) is not believed: rebuilt and rewritten.
  fs.writeFileSync(cache, JSON.stringify({ ...stored, totalLines: 123_456 }));
  const forged = await rt(["open", "big.log:10"], { cwd: root });
  assert.match(
    forged.stdout,
    new RegExp(`^--- big\\.log \\(lines 1-59 of ${N}\\) ---\n`),
    "the forged line count is not shown",
  );
  assert.equal(JSON.parse(fs.readFileSync(cache, "utf8")).totalLines, N);

  // Appending changes size and mtime: the index is rebuilt (and the cache rewritten).
  fs.appendFileSync(path.join(root, "big.log"), "appended line\n");
  const r3 = await rt(["open", `big.log:${N + 1}`], { cwd: root });
  assert.equal(r3.code, 0, r3.stderr);
  assert.match(r3.stdout, new RegExp(`^--- big\\.log \\(lines ${N - 49}-${N + 1} of ${N + 1}\\) ---\n`));
  assert.match(r3.stdout, new RegExp(`\n${N + 1}: appended line\n$`));
  assert.equal(JSON.parse(fs.readFileSync(cache, "utf8")).totalLines, N + 1);

  // Same size, new content and mtime: rebuilt too (a byte turned into a newline adds a line).
  const fd = fs.openSync(path.join(root, "big.log"), "r+");
  fs.writeSync(fd, "\n", 20); // inside line 1
  fs.closeSync(fd);
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(path.join(root, "big.log"), later, later);
  const r4 = await rt(["read", "big.log", "--limit", "2"], { cwd: root });
  assert.equal(r4.code, 0, r4.stderr);
  assert.match(
    r4.stdout,
    new RegExp(
      `^   1: ${fixed(1).slice(0, 20)}\n   2: ${fixed(1).slice(21)}\n\\.\\.\\. \\(showing lines 1-2 of ${N + 2},`,
    ),
  );
});

test("in one process, the in-memory index is dropped when the file changes", async () => {
  const root = bigTree();
  const ws = createWorkspace({ root, env: {} });
  const N = bigLineCount;
  const a = await callTool(ws, "open", { path: "big-nofinal.log:1" });
  assert.match(a.output as string, new RegExp(`of ${N}\\) ---`));
  fs.appendFileSync(path.join(root, "big-nofinal.log"), " tail\nnew last");
  const b = await callTool(ws, "open", { path: `big-nofinal.log:${N + 1}` });
  assert.match(b.output as string, new RegExp(`of ${N + 1}\\) ---`));
  assert.match(b.output as string, new RegExp(`\n${N}: ${fixed(N)} tail\n${N + 1}: new last$`));
});

test("getLineIndex keeps nothing when state is off", async () => {
  const root = bigTree();
  const ws = createWorkspace({ root, env: { RT_STATE: "off" } });
  const file = path.join(root, "big.log");
  const idx = await getLineIndex(ws.state, "big.log", file, fs.statSync(file));
  assert.equal(idx.totalLines, bigLineCount);
  assert.equal(fs.existsSync(path.join(root, ".rt")), false);
});

test("files above the parallel-scan threshold (128 MiB): two threads, correct lines, bounded memory", async (t) => {
  const root = tempTree();
  const file = path.join(root, "huge.log");
  const width = 61; // 60 characters and a newline
  const make = (i: number) => `${String(i).padStart(10, "0")} ${"0123456789".repeat(4)}${"z".repeat(9)}`;
  const N = Math.ceil((130 * 1024 * 1024) / width);
  const t0 = Date.now();
  // Fixed-width lines: fill a template, then stamp each line's number.
  const fd = fs.openSync(file, "w");
  const per = 100_000;
  const template = Buffer.from(`${make(0)}\n`.repeat(per), "latin1");
  for (let from = 1; from <= N; from += per) {
    const n = Math.min(per, N - from + 1);
    const chunk = Buffer.from(template.subarray(0, n * width));
    for (let k = 0; k < n; k++) chunk.write(String(from + k).padStart(10, "0"), k * width, "latin1");
    fs.writeSync(fd, from + n - 1 === N ? chunk.subarray(0, chunk.length - 1) : chunk);
  }
  fs.closeSync(fd);
  const size = fs.statSync(file).size;
  assert.equal(size, N * width - 1);
  t.diagnostic(`wrote ${(size / 2 ** 20).toFixed(0)} MiB in ${Date.now() - t0} ms`);

  const t1 = Date.now();
  const idx = await buildLineIndex(file, fs.statSync(file));
  t.diagnostic(`indexed in ${Date.now() - t1} ms`);
  assert.equal(idx.totalLines, N);
  // Checkpoints land exactly on line starts, in both halves and across the split.
  for (let k = 0; k < idx.checkpointLines.length; k++) {
    assert.equal(idx.checkpointOffsets[k], (idx.checkpointLines[k] - 1) * width, `checkpoint ${k}`);
  }
  const midLine = Math.floor(size / 2 / width) + 1;
  for (const s of [1, 1024, 1025, midLine - 3, midLine, midLine + 1, N - 5, N]) {
    const got = readIndexedLines(file, idx, s, 6);
    const want = Array.from({ length: Math.min(6, N - s + 1) }, (_, k) => make(s + k));
    assert.deepEqual(got, want, `lines ${s}..`);
  }

  // Through the CLI, with the peak memory of the process measured.
  const hook = path.join(root, "rss-hook.cjs");
  fs.writeFileSync(
    hook,
    'process.on("exit", () => process.stderr.write(`MAXRSS_KB=${process.resourceUsage().maxRSS}\\n`));\n',
  );
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const env = { ...process.env };
      delete env.RT_ROOT;
      const c = spawn(process.execPath, ["--require", hook, CLI, ...args], { cwd: root, env });
      let stdout = "";
      let stderr = "";
      c.stdout.on("data", (d) => (stdout += d));
      c.stderr.on("data", (d) => (stderr += d));
      c.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  const r = await run(["open", `huge.log:${midLine}`]);
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout.split("\n");
  assert.equal(out[0], `--- huge.log (lines ${midLine - 50}-${midLine + 49} of ${N}) ---`);
  assert.equal(out[51], `${midLine}: ${make(midLine)}`);
  const rss = Number(/MAXRSS_KB=(\d+)/.exec(r.stderr)![1]) / 1024;
  t.diagnostic(`peak memory ${rss.toFixed(0)} MiB`);
  assert.ok(rss < 150, `peak memory ${rss.toFixed(0)} MiB`);
  const r2 = await run(["read", "huge.log", "--offset", String(N)]);
  assert.equal(r2.stdout, `${N}: ${make(N)}\n`);
  assert.ok(fs.existsSync(path.join(root, ".rt", "index", `${StateStore.keyFor("huge.log")}.json`)));
  const g = await run(["grep-file", `^${String(N - 1).padStart(10, "0")}`, "huge.log"]);
  assert.equal(g.stdout, `${N - 1}: ${make(N - 1)}\n`);
  fs.rmSync(file);
});
