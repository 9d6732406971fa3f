// ls (seed 003): a flat listing (type and permissions, size, mtime, name;
// directories first; symlinks with their targets) or a tree (--tree, depth 3
// by default), at most 200 entries.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { LS_MAX_ENTRIES } from "../../src/base/limits.ts";
import { rt, rtBatch, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";

const MTIME = new Date("2024-03-05T06:07:08Z");

function tree() {
  const root = tempTree({
    "zeta.txt": "z".repeat(10),
    "alpha.md": "a".repeat(2048),
    "b/inner.txt": "i\n",
    "a/1/2/3/4/deep.txt": "deep\n",
    "a/top.txt": "t\n",
    ".hidden": "h\n",
    "node_modules/pkg/index.js": "x\n",
    "empty/.keep": "",
  });
  fs.chmodSync(path.join(root, "zeta.txt"), 0o640);
  fs.chmodSync(path.join(root, "alpha.md"), 0o644); // whatever the umask
  fs.symlinkSync("alpha.md", path.join(root, "link.md"));
  fs.symlinkSync("/nowhere/at/all", path.join(root, "broken"));
  for (const p of ["zeta.txt", "alpha.md"]) fs.utimesSync(path.join(root, p), MTIME, MTIME);
  return root;
}

test("flat listing: directories first, then files, by name; mode, size, mtime, symlink targets; no dot files", async () => {
  const root = tree();
  const r = await rt(["ls"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout.trimEnd().split("\n");
  const names = out.map((l) => l.split(/\s{2,}/).pop());
  assert.deepEqual(names, [
    "a/",
    "b/",
    "empty/",
    "node_modules/",
    "alpha.md",
    "broken -> /nowhere/at/all",
    "link.md -> alpha.md",
    "zeta.txt",
  ]);
  const mtime = MTIME.toISOString().slice(0, 16).replace("T", " ");
  assert.equal(out[4], `-rw-r--r--    2.0 KiB  ${mtime}  alpha.md`);
  assert.equal(out[7], `-rw-r-----       10 B  ${mtime}  zeta.txt`);
  assert.match(out[0], /^drwx[-r][-w][-x][-r][-w][-x]\s+-\s+\d{4}-\d\d-\d\d \d\d:\d\d  a\/$/);
  assert.match(out[6], /^lrwxrwxrwx\s+8 B\s+.*  link\.md -> alpha\.md$/);
  const w = createWorkspace({ root, env: {} });
  const res = await callTool(w, "ls", {});
  assert.equal(res.count, 8);
  assert.equal(res.truncated, false);
  const entries = res.entries as Array<Record<string, unknown>>;
  assert.deepEqual(
    entries.find((e) => e.name === "link.md"),
    {
      name: "link.md",
      type: "symlink",
      size: 8,
      mtime: (entries.find((e) => e.name === "link.md") as any).mtime,
      mode: "lrwxrwxrwx",
      target: "alpha.md",
    },
  );
  assert.equal(entries.find((e) => e.name === "alpha.md")!.type, "file");
  assert.equal(entries.find((e) => e.name === "a")!.type, "directory");
});

test("-a shows dot files; a subdirectory argument; an empty directory", async () => {
  const root = tree();
  const a = await rtMain(["ls", "-a"], { cwd: root });
  assert.match(a.stdout, /  \.hidden\n/);
  const sub = await rtMain(["ls", "a"], { cwd: root });
  assert.deepEqual(
    sub.stdout
      .trimEnd()
      .split("\n")
      .map((l) => l.split(/\s{2,}/).pop()),
    ["1/", "top.txt"],
  );
  const empty = await rtMain(["ls", "empty"], { cwd: root });
  assert.equal(empty.stdout, "(empty is empty)\n");
  const withDot = await rtMain(["ls", "empty", "--all"], { cwd: root });
  assert.match(withDot.stdout, /  \.keep\n$/);
});

test("--tree: depth 3 by default, sizes and link targets, skipped directories not descended", async () => {
  const root = tree();
  const r = await rtMain(["ls", "--tree"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      "./",
      "├── a/",
      "│   ├── 1/",
      "│   │   └── 2/",
      "│   └── top.txt (2 B)",
      "├── b/",
      "│   └── inner.txt (2 B)",
      "├── empty/",
      "├── node_modules/",
      "├── alpha.md (2.0 KiB)",
      "├── broken -> /nowhere/at/all",
      "├── link.md -> alpha.md",
      "└── zeta.txt (10 B)",
      "",
    ].join("\n"),
  );
  const d1 = await rtMain(["ls", "a", "--tree", "--depth", "1"], { cwd: root });
  assert.equal(d1.stdout, "a/\n├── 1/\n└── top.txt (2 B)\n");
  const d5 = await rtMain(["ls", "a", "-t", "--depth", "5"], { cwd: root });
  assert.equal(
    d5.stdout,
    "a/\n├── 1/\n│   └── 2/\n│       └── 3/\n│           └── 4/\n│               └── deep.txt (5 B)\n└── top.txt (2 B)\n",
  );
});

test("at most 200 entries, flat and tree, with `... truncated (N more)`", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 230; i++) files[`many/f${String(i).padStart(3, "0")}.txt`] = "";
  const root = tempTree(files);
  assert.equal(LS_MAX_ENTRIES, 200);
  const flat = await rtMain(["ls", "many"], { cwd: root });
  const out = flat.stdout.trimEnd().split("\n");
  assert.equal(out.length, 201);
  assert.match(out[199], /  f199\.txt$/);
  assert.equal(out[200], "... truncated (30 more)");
  const t = await rtMain(["ls", "--tree"], { cwd: root });
  const tout = t.stdout.trimEnd().split("\n");
  assert.equal(tout.length, 1 + 200 + 1);
  assert.match(tout[tout.length - 1], /^\.\.\. truncated\b.*\b31 more\b/);
  const w = createWorkspace({ root, env: {} });
  const res = await callTool(w, "ls", { path: "many" });
  assert.deepEqual([res.count, res.truncated, (res.entries as unknown[]).length], [230, true, 200]);
});

test("errors: a file, a missing directory, bad depth; list_dir alias", async () => {
  const root = tree();
  const f = await rtMain(["ls", "zeta.txt"], { cwd: root });
  assert.equal(f.code, 1);
  assert.equal(f.stderr, "rt ls: zeta.txt: not a directory; use read or open to see a file\n");
  const m = await rtMain(["ls", "nope"], { cwd: root });
  assert.equal(m.code, 1);
  assert.equal(m.stderr, "rt ls: nope: directory not found\n");
  const d = await rtMain(["ls", "--tree", "--depth", "x"], { cwd: root });
  assert.equal(d.code, 2);
  const { results } = await rtBatch(
    [
      { tool: "list_dir", args: { path: "b" } },
      { tool: "ls", args: { depth: 0, tree: true } },
    ],
    { cwd: root },
  );
  assert.equal(results[0].success, true);
  assert.match(results[0].output, /  inner\.txt$/);
  assert.equal(results[1].error_type, "usage");
  assert.match(results[1].error, /depth/);
});
