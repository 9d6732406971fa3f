// grep's output is deterministic: the same lines in the same order every time
// (by path, then line), and when capped the first N in that order, whatever order
// ripgrep's search threads finish files in. The oracle is ripgrep itself run
// single-threaded with --sort path over generated trees (many files, nested
// directories, names that sort differently byte-wise and segment-wise, files that
// read refuses as binary without holding a NUL byte, files with NUL bytes).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { baseArgs, comparePaths, rgPath } from "../../src/tools/shared/ripgrep.ts";
import { fileBinaryKind } from "../../src/workspace/binary.ts";
import { rt, soak, tempTree, seededRandom } from "../helpers.ts";

const NAMES = ["a", "a-b", "a.b", "a_b", "A", "b", "B2", "b10", "b9", "é", "z z", "lib", "Lib", "x"];

/** A tree of `files` files; about a third hold "needle" lines, a few are binary-looking or hold NUL bytes. */
function generateTree(seed: number, files: number): string {
  const r = seededRandom(seed);
  const tree: Record<string, string | Buffer> = {};
  for (let i = 0; i < files; i++) {
    const depth = r.int(4);
    const parts = Array.from({ length: depth }, () => r.pick(NAMES));
    const rel = [...parts, `${r.pick(NAMES)}${i % 7}.${r.pick(["ts", "py", "md", "txt"])}`].join("/");
    const lines: string[] = [];
    const n = 1 + r.int(30);
    for (let k = 0; k < n; k++)
      lines.push(r.chance(0.15) ? `line ${k} has a needle ${r.int(1000)}` : `line ${k} ${r.int(100000)}`);
    const kind = r.int(40);
    if (kind === 0)
      tree[rel] = Buffer.from(
        `\x01\x02\x03\x04\x05\x06 needle \x07\x08\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\n`.repeat(4),
      ); // binary-looking, no NUL
    else if (kind === 1)
      tree[rel] = Buffer.concat([
        Buffer.from("needle in a file with a NUL\n"),
        Buffer.from([0, 1, 2]),
        Buffer.from("\nneedle\n"),
      ]);
    else tree[rel] = `${lines.join("\n")}\n`;
  }
  return tempTree(tree, "rt-grep-order-");
}

interface OracleLine {
  file: string;
  line: number;
  text: string;
}

/** ripgrep, one thread, sorted by path: every matching line rt may show or count. */
function oracle(root: string, pattern: string): OracleLine[] {
  const r = spawnSync(
    rgPath(),
    [
      ...baseArgs(),
      "--sort",
      "path",
      "--no-messages",
      "--crlf",
      "--line-number",
      "--with-filename",
      "--null",
      "--regexp",
      pattern,
    ],
    { cwd: root, encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] },
  );
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const nul = l.indexOf("\0");
      const rest = l.slice(nul + 1);
      const colon = rest.indexOf(":");
      return {
        file: l.slice(0, nul),
        line: Number(rest.slice(0, colon)),
        text: rest.slice(colon + 1).replace(/\r$/, ""),
      };
    });
}

/** The first `limit` matches rt must show, and the total it must report. */
function expected(root: string, all: OracleLine[], limit: number): { shown: OracleLine[]; total: number } {
  const binary = new Map<string, boolean>();
  const isBinary = (f: string) => {
    if (!binary.has(f)) binary.set(f, fileBinaryKind(path.join(root, f)) !== null);
    return binary.get(f)!;
  };
  const shown: OracleLine[] = [];
  let cutoff: string | undefined;
  for (const l of all) {
    if (shown.length >= limit) break;
    if (isBinary(l.file)) continue;
    shown.push(l);
    if (shown.length === limit) cutoff = l.file;
  }
  // Counted: every match but those in binary-looking files up to the last shown file.
  const total = all.filter(
    (l) => !(isBinary(l.file) && (cutoff === undefined || comparePaths(l.file, cutoff) < 0)),
  ).length;
  return { shown, total };
}

test("ripgrep's --sort path order is comparePaths' order", () => {
  for (const seed of [1, 2, 3]) {
    const root = generateTree(seed, 300);
    const files = oracle(root, "needle").map((l) => l.file);
    assert.ok(files.length > 20);
    const sorted = [...files].sort(comparePaths);
    assert.deepEqual(files, sorted);
  }
});

test("grep shows the first N matches by path then line, the same on every run, with ripgrep's total", async () => {
  // Three generated trees in `npm test`, six in the soak run.
  for (const seed of soak([11, 12, 13], [11, 12, 13, 14, 15, 16])) {
    const root = generateTree(seed, 600);
    const ws = createWorkspace({ root, env: {} });
    const all = oracle(root, "needle");
    assert.ok(all.length > 50, `seed ${seed}: enough matches (${all.length})`);
    for (const limit of [1, 7, 50, 200, 100000]) {
      const want = expected(root, all, limit);
      let first: string | undefined;
      for (let run = 0; run < 3; run++) {
        const r = await callTool(ws, "grep", { pattern: "needle", limit });
        assert.equal(r.success, true, r.error);
        const matches = (r.matches as Array<{ file: string; line: number; content: string }>).map((m) => ({
          file: m.file,
          line: m.line,
          text: m.content,
        }));
        assert.deepEqual(matches, want.shown, `seed ${seed} limit ${limit} run ${run}`);
        assert.equal(r.count, want.total, `seed ${seed} limit ${limit}: total`);
        if (first === undefined) first = r.output;
        else assert.equal(r.output, first, `seed ${seed} limit ${limit}: same text every run`);
      }
    }
  }
});

test("files_with_matches and count: the first N files in path order, deterministic", async () => {
  for (const seed of [21, 22, 23]) {
    const root = generateTree(seed, 500);
    const ws = createWorkspace({ root, env: {} });
    const all = oracle(root, "needle");
    const files = [...new Set(all.map((l) => l.file))].filter((f) => fileBinaryKind(path.join(root, f)) === null);
    for (const limit of [1, 10, 100000]) {
      const l = await callTool(ws, "grep", { pattern: "needle", output_mode: "files_with_matches", limit });
      assert.deepEqual(l.files, files.slice(0, limit), `seed ${seed} -l limit ${limit}`);
      const c = await callTool(ws, "grep", { pattern: "needle", output_mode: "count", limit });
      const want = files.slice(0, limit).map((f) => ({ file: f, count: all.filter((x) => x.file === f).length }));
      assert.deepEqual(c.counts, want, `seed ${seed} -c limit ${limit}`);
      const again = await callTool(ws, "grep", { pattern: "needle", output_mode: "count", limit });
      assert.equal(again.output, c.output);
    }
  }
});

test("context: groups in path order, -- between separate groups and files, after-context of the last shown match kept", async () => {
  const root = tempTree({
    "b.txt": "x\nneedle b2\ny\n",
    "a/z.txt": "needle az1\nq\nr\ns\nneedle az5\nt\n",
    "a-b.txt": "needle ab1\n",
  });
  const r = await rt(["grep", "needle", "-C", "1"], { cwd: root });
  assert.equal(
    r.stdout,
    "a/z.txt:1: needle az1\na/z.txt-2- q\n--\na/z.txt-4- s\na/z.txt:5: needle az5\na/z.txt-6- t\n--\na-b.txt:1: needle ab1\n--\nb.txt-1- x\nb.txt:2: needle b2\nb.txt-3- y\n",
  );
  const capped = await callTool(createWorkspace({ root, env: {} }), "grep", {
    pattern: "needle",
    context: 1,
    limit: 2,
  });
  assert.equal(
    capped.output,
    "a/z.txt:1: needle az1\na/z.txt-2- q\n--\na/z.txt-4- s\na/z.txt:5: needle az5\na/z.txt-6- t\n... truncated: showing 2 of 4 matches (the first in path order; 2 more); narrow the pattern or path, or raise limit",
  );
  const before = await callTool(createWorkspace({ root, env: {} }), "grep", {
    pattern: "needle",
    context_before: 1,
    path: "b.txt",
  });
  assert.equal(before.output, "1- x\n2: needle b2", "a file given as the path: lines without its name");
  const after = await callTool(createWorkspace({ root, env: {} }), "grep", {
    pattern: "needle",
    context_after: 2,
    path: "a/z.txt",
    limit: 1,
  });
  assert.equal(
    after.output,
    "1: needle az1\n2- q\n3- r\n... truncated: showing 1 of 2 matches (the first in path order; 1 more); narrow the pattern or path, or raise limit",
  );
});

test("binary files: a directory search names the binary-looking files it left out; a binary file given itself is refused as binary", async () => {
  const bin = Buffer.from("\x01\x02\x03needle\x04\x05\x06\x07\x08\x0e\x0f\x10\x11\x12\x13\n".repeat(3));
  const root = tempTree({
    "data.bin": bin,
    "text.txt": "needle\n",
    "img.png": Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("needle\n")]),
  });
  const ws = createWorkspace({ root, env: {} });
  const r = await callTool(ws, "grep", { pattern: "needle" });
  assert.equal(
    r.output,
    "text.txt:1: needle\n(2 binary files with matches not shown: data.bin (binary data), img.png (PNG image))".replace(
      "binary data",
      String(fileBinaryKind(path.join(root, "data.bin"))),
    ),
  );
  assert.equal(r.count, 1);
  for (const [tool, args] of [
    ["grep", { pattern: "needle", path: "data.bin" }],
    ["grep-file", { pattern: "needle", path: "img.png" }],
  ] as const) {
    const b = await callTool(ws, tool, args);
    assert.equal(b.success, false);
    assert.match(b.error!, new RegExp(`^${args.path}: binary file \\(.+\\); not searched`));
  }
  const cli = await rt(["grep", "needle", "img.png"], { cwd: root });
  assert.equal(cli.code, 1);
  assert.match(cli.stderr, /img\.png: binary file \(PNG image, .*\); not searched/);
});

test("the same search run concurrently many times gives byte-identical output", async () => {
  const root = generateTree(99, 2000);
  const ws = createWorkspace({ root, env: {} });
  const outs = await Promise.all(
    Array.from({ length: 6 }, () => callTool(ws, "grep", { pattern: "needle \\d+[05]", limit: 40 })),
  );
  for (const o of outs) assert.equal(o.output, outs[0].output);
  const cli = await Promise.all(
    Array.from({ length: 3 }, () => rt(["grep", "needle", "--limit", "25"], { cwd: root })),
  );
  for (const c of cli) assert.equal(c.stdout, cli[0].stdout);
  assert.ok(fs.existsSync(root));
});

test("a binary-looking file among the first matches: the files it crowded out are found again (the search reruns)", async () => {
  const files: Record<string, string | Buffer> = {
    "a/early.dat": Buffer.from("\x01\x02\x03 needle \x04\x05\x06\x07\x08\x0e\x0f\x10\x11\x12\n".repeat(50)),
  };
  for (let i = 0; i < 300; i++) files[`b/f${String(i).padStart(3, "0")}.txt`] = "needle\n";
  const root = tempTree(files);
  const ws = createWorkspace({ root, env: {} });
  const r = await callTool(ws, "grep", { pattern: "needle", limit: 10 });
  const shown = (r.matches as Array<{ file: string }>).map((m) => m.file);
  assert.deepEqual(
    shown,
    Array.from({ length: 10 }, (_, i) => `b/f${String(i).padStart(3, "0")}.txt`),
  );
  assert.equal(r.count, 300, "the binary file's 50 matches are not counted");
  assert.deepEqual(r.binary_files, ["a/early.dat"]);
});
