// find (find_file, glob): names matching a substring or a glob, relative
// paths, sorted, .gitignore honored (even outside git), .git/, node_modules/
// and the like skipped, capped at 200 with `... truncated (N more)`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { FIND_DEFAULT_CAP } from "../../src/base/limits.ts";
import { git, rt, rtBatch, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";

function tree() {
  return tempTree({
    "src/app.ts": "",
    "src/App.test.ts": "",
    "src/lib/deep/util.ts": "",
    "src/lib/helper.js": "",
    "src/style.css": "",
    "docs/app-guide.md": "",
    ".env": "",
    ".github/workflows/ci.yml": "",
    ".gitignore": "dist/\n*.log\n!keep.log\n",
    "dist/app.ts": "",
    "build.log": "",
    "keep.log": "",
    "sub/.gitignore": "generated.ts\n",
    "sub/generated.ts": "",
    "sub/written.ts": "",
    "node_modules/app/index.ts": "",
    ".git/app.ts": "",
    ".venv/app.py": "",
    "__pycache__/app.pyc": "",
    ".rt/app.json": "",
  });
}

test("substring: case-insensitive match on the file name, relative sorted paths", async () => {
  const root = tree();
  const r = await rt(["find", "app"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "docs/app-guide.md\nsrc/App.test.ts\nsrc/app.ts\n");
  // A substring naming a directory does not match the files in it...
  const lib = await rtMain(["find", "lib"], { cwd: root });
  assert.equal(lib.stdout, 'no files matching "lib"\n');
  // ...unless it contains "/", then it is matched against the whole path.
  const slash = await rtMain(["find", "lib/"], { cwd: root });
  assert.equal(slash.stdout, "src/lib/deep/util.ts\nsrc/lib/helper.js\n");
});

test("globs: **/*.ts, *.ts, src/**/*.ts, braces", async () => {
  const root = tree();
  const all = ["src/App.test.ts", "src/app.ts", "src/lib/deep/util.ts", "sub/written.ts"];
  assert.equal((await rtMain(["find", "**/*.ts"], { cwd: root })).stdout, `${all.join("\n")}\n`);
  assert.equal((await rtMain(["find", "*.ts"], { cwd: root })).stdout, `${all.join("\n")}\n`);
  assert.equal(
    (await rtMain(["find", "src/**/*.ts"], { cwd: root })).stdout,
    "src/App.test.ts\nsrc/app.ts\nsrc/lib/deep/util.ts\n",
  );
  assert.equal((await rtMain(["find", "*.{css,md}"], { cwd: root })).stdout, "docs/app-guide.md\nsrc/style.css\n");
  assert.equal(
    (await rtMain(["find", "*.TS", "src/lib"], { cwd: root })).stdout,
    "src/lib/deep/util.ts\n",
    "globs ignore case too",
  );
});

test(".gitignore is honored without git (nested ones and negations too); hidden files are found", async () => {
  const root = tree();
  const r = await rtMain(["find", "*"], { cwd: root });
  const out = r.stdout.trimEnd().split("\n");
  for (const gone of [
    "dist/app.ts",
    "build.log",
    "sub/generated.ts",
    "node_modules/app/index.ts",
    ".git/app.ts",
    ".venv/app.py",
    "__pycache__/app.pyc",
    ".rt/app.json",
  ]) {
    assert.ok(!out.includes(gone), `${gone} must be skipped`);
  }
  for (const kept of ["keep.log", ".env", ".github/workflows/ci.yml", ".gitignore", "sub/written.ts"]) {
    assert.ok(out.includes(kept), `${kept} must be listed`);
  }
  assert.deepEqual(out, [...out].sort());
});

test("a glob never lists ignored or skipped files, not even `*`", async () => {
  const root = tree();
  const out = (await rtMain(["find", "*"], { cwd: root })).stdout.trimEnd().split("\n");
  assert.deepEqual(out, [
    ".env",
    ".github/workflows/ci.yml",
    ".gitignore",
    "docs/app-guide.md",
    "keep.log",
    "src/App.test.ts",
    "src/app.ts",
    "src/lib/deep/util.ts",
    "src/lib/helper.js",
    "src/style.css",
    "sub/.gitignore",
    "sub/written.ts",
  ]);
  assert.equal((await rtMain(["find", "dist/**"], { cwd: root })).stdout, 'no files matching "dist/**"\n');
  assert.equal(
    (await rtMain(["find", "node_modules/**"], { cwd: root })).stdout,
    'no files matching "node_modules/**"\n',
  );
  assert.equal((await rtMain(["find", "*.pyc"], { cwd: root })).stdout, 'no files matching "*.pyc"\n');
});

test("inside a real git repository: .gitignore honored, .git/ skipped", async () => {
  const root = tree();
  git(root, "init", "-q");
  const r = await rtMain(["find", "app"], { cwd: root });
  assert.equal(r.stdout, "docs/app-guide.md\nsrc/App.test.ts\nsrc/app.ts\n");
});

test("a directory argument narrows the search; paths stay relative to the root", async () => {
  const root = tree();
  const r = await rtMain(["find", "util", "src/lib"], { cwd: root });
  assert.equal(r.stdout, "src/lib/deep/util.ts\n");
  const none = await rtMain(["find", "zzz", "src"], { cwd: root });
  assert.equal(none.stdout, 'no files matching "zzz" under src\n');
  const missing = await rtMain(["find", "x", "nope"], { cwd: root });
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, "rt find: nope: directory not found\n");
});

test("capped at 200 by default with `... truncated (N more)`; --limit changes the cap", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 250; i++) files[`gen/file${String(i).padStart(3, "0")}.txt`] = "";
  const root = tempTree(files);
  assert.equal(FIND_DEFAULT_CAP, 200);
  const r = await rtMain(["find", "file"], { cwd: root });
  const out = r.stdout.trimEnd().split("\n");
  assert.equal(out.length, 201);
  assert.equal(out[0], "gen/file000.txt");
  assert.equal(out[199], "gen/file199.txt");
  assert.equal(out[200], "... truncated (50 more)");
  const l = await rtMain(["find", "*.txt", "--limit", "2"], { cwd: root });
  assert.equal(l.stdout, "gen/file000.txt\ngen/file001.txt\n... truncated (248 more)\n");
  const w = createWorkspace({ root, env: {} });
  const res = await callTool(w, "find", { pattern: "file", limit: 3 });
  assert.deepEqual(res.files, ["gen/file000.txt", "gen/file001.txt", "gen/file002.txt"]);
  assert.deepEqual([res.count, res.truncated], [250, true]);
});

test("rt call: find, find_file and glob are the same tool", async () => {
  const root = tree();
  const { results } = await rtBatch(
    [
      { tool: "find", args: { pattern: "*.css" } },
      { tool: "find_file", args: { pattern: "*.css" } },
      { tool: "glob", args: { pattern: "*.css" } },
      { tool: "find", args: { pattern: "" } },
    ],
    { cwd: root },
  );
  assert.deepEqual(results[0], {
    success: true,
    output: "src/style.css",
    files: ["src/style.css"],
    count: 1,
    truncated: false,
  });
  assert.deepEqual(results[1], results[0]);
  assert.deepEqual(results[2], results[0]);
  assert.equal(results[3].error_type, "usage");
  assert.match(results[3].error, /pattern/);
});
