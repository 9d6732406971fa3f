// The state directory `.rt/`: created at the root, ignoring itself in git
// (a `.gitignore` holding `*`), switched off by RT_STATE=off or the seed's
// RAGIX_VIEW_STATE=off (then nothing is written and every tool still works),
// never followed out of the root through a symlink.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { StateStore, stateEnabledFromEnv } from "../../src/workspace/state.ts";
import { callTool } from "../../src/tools/policy.ts";
import { LARGE_FILE_BYTES } from "../../src/base/limits.ts";
import { git, lines, rt, rtBatch, tempTree, treeHash } from "../helpers.ts";

/** A text file a little above LARGE_FILE_BYTES, so it goes through the line index. */
function bigText(): string {
  const n = Math.ceil(LARGE_FILE_BYTES / 20) + 1000;
  return lines(n, (i) => `big line ${String(i).padStart(9, "0")}`);
}

test(".rt/ is created at the root with a .gitignore of `*`; git status shows nothing from it", async () => {
  const root = tempTree({ "src/app.ts": lines(300), "README.md": "# hi\n" });
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "init");
  for (const args of [
    ["open", "src/app.ts:150"],
    ["scroll", "src/app.ts", "+"],
    ["read", "src/app.ts", "--ids"],
    ["grep", "line 1", "--ids"],
  ]) {
    const r = await rt(args, { cwd: root });
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  }
  assert.equal(fs.readFileSync(path.join(root, ".rt", ".gitignore"), "utf8"), "*\n");
  assert.ok(fs.existsSync(path.join(root, ".rt", "view.json")));
  assert.ok(fs.readdirSync(path.join(root, ".rt", "ids")).length > 0);
  assert.equal(git(root, "status", "--porcelain", "--untracked-files=all"), "", "the work tree looks untouched to git");
  // Ignored by its own .gitignore, not by anything in the repository.
  assert.match(git(root, "check-ignore", "-v", ".rt/view.json"), /^\.rt\/\.gitignore:1:\*\t\.rt\/view\.json/);
  assert.doesNotMatch(git(root, "status", "--porcelain", "--ignored"), /\.rt\/(?!$)/m);
});

test("an existing .rt/.gitignore is left alone", async () => {
  const root = tempTree({ "a.txt": "a\n", ".rt/.gitignore": "*\n# mine\n" });
  await rt(["open", "a.txt"], { cwd: root });
  assert.equal(fs.readFileSync(path.join(root, ".rt", ".gitignore"), "utf8"), "*\n# mine\n");
});

for (const [name, value] of [
  ["RT_STATE", "off"],
  ["RAGIX_VIEW_STATE", "off"],
  ["RT_STATE", "0"],
] as const) {
  test(`${name}=${value}: nothing is written, and every tool still works statelessly`, async () => {
    const root = tempTree({
      "src/app.ts": lines(300),
      "dup.txt": "}\n\n}\n\n",
      "big.log": bigText(),
      "sub/x.py": "print('x')\n",
    });
    const before = treeHash(root, []);
    const env = { [name]: value };
    const { code, results } = await rtBatch(
      [
        { tool: "open", args: { path: "src/app.ts:150" } },
        { tool: "scroll", args: { path: "src/app.ts", direction: "+" } },
        { tool: "scroll", args: { path: "src/app.ts", direction: "-" } },
        { tool: "read", args: { path: "dup.txt", ids: true } },
        { tool: "read", args: { path: "dup.txt", ids: true } },
        { tool: "grep", args: { pattern: "line 29", ids: true } },
        { tool: "grep-file", args: { pattern: "big line 000400000", path: "big.log" } },
        { tool: "open", args: { path: "big.log:400000" } },
        { tool: "read", args: { path: "big.log", offset: 400000, limit: 2 } },
        { tool: "find", args: { pattern: "*.py" } },
        { tool: "ls", args: { tree: true } },
      ],
      { cwd: root, env },
    );
    assert.equal(code, 0);
    for (const r of results) assert.equal(r.success, true, r.error);
    assert.match(results[0].output, /^--- src\/app\.ts \(lines 100-199 of 300\) ---/);
    // Within one process the window is remembered in memory.
    assert.match(results[1].output, /^--- src\/app\.ts \(lines 198-297 of 300\) ---/);
    assert.match(results[2].output, /^--- src\/app\.ts \(lines 100-199 of 300\) ---/);
    assert.equal(results[3].line_ids.length, 4);
    assert.equal(new Set(results[3].line_ids).size, 4);
    assert.deepEqual(results[4].line_ids, results[3].line_ids);
    assert.match(results[5].output, /^src\/app\.ts:29:\[LID:[0-9a-z]{4,6}\]: line 29$/m);
    assert.equal(results[6].output, "400000: big line 000400000");
    assert.match(results[7].output, /^--- big\.log \(lines 399950-400049 of \d+\) ---/);
    assert.match(results[8].output, /^400000: big line 000400000\n400001: big line 000400001\n/);
    assert.equal(results[9].output, "sub/x.py");
    // Separate processes: nothing remembered, so scroll + behaves like open.
    const o = await rt(["open", "src/app.ts:150"], { cwd: root, env });
    assert.equal(o.code, 0);
    const s = await rt(["scroll", "src/app.ts", "+"], { cwd: root, env });
    assert.equal(s.code, 0);
    assert.match(s.stdout, /^--- src\/app\.ts \(lines 1-100 of 300\) ---\n1: line 1\n/);
    assert.equal(fs.existsSync(path.join(root, ".rt")), false, "no state directory");
    assert.equal(treeHash(root, []), before, "no file written anywhere under the root");
  });
}

test("stateEnabledFromEnv reads RT_STATE and RAGIX_VIEW_STATE", () => {
  assert.equal(stateEnabledFromEnv({}), true);
  assert.equal(stateEnabledFromEnv({ RT_STATE: "on" }), true);
  for (const v of ["off", "OFF", "0", "false", "no", " off "]) {
    assert.equal(stateEnabledFromEnv({ RT_STATE: v }), false, v);
    assert.equal(stateEnabledFromEnv({ RAGIX_VIEW_STATE: v }), false, v);
  }
  assert.equal(createWorkspace({ root: tempTree(), env: { RT_STATE: "off" } }).state.enabled, false);
  assert.equal(createWorkspace({ root: tempTree(), env: {}, state: false }).state.enabled, false);
});

test("corrupt or foreign state files are treated as no state", async () => {
  const root = tempTree({ "a.txt": lines(300), ".rt/view.json": "{not json", ".rt/.gitignore": "*\n" });
  const r = await rt(["scroll", "a.txt", "+"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^--- a\.txt \(lines 1-100 of 300\) ---/);
  const ids1 = await rt(["read", "a.txt", "--ids", "--limit", "1"], { cwd: root });
  const key = StateStore.keyFor("a.txt");
  fs.writeFileSync(path.join(root, ".rt", "ids", `${key}.json`), "garbage");
  const ids2 = await rt(["read", "a.txt", "--ids", "--limit", "1"], { cwd: root });
  assert.equal(ids2.code, 0);
  assert.match(ids2.stdout, /^   1: \[LID:[0-9a-z]{4,6}\] line 1/);
  assert.equal(ids1.code, 0);
});

test("a .rt symlink leading out of the root is never written through; tools still work", async () => {
  const parent = tempTree({ "root/a.txt": lines(300), "outside/keep.txt": "keep\n" });
  const root = path.join(parent, "root");
  fs.symlinkSync(path.join(parent, "outside"), path.join(root, ".rt"));
  const before = treeHash(path.join(parent, "outside"), []);
  for (const args of [
    ["open", "a.txt:100"],
    ["scroll", "a.txt", "+"],
    ["read", "a.txt", "--ids", "--limit", "3"],
  ]) {
    const r = await rt(args, { cwd: root });
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  }
  assert.equal(treeHash(path.join(parent, "outside"), []), before, "nothing written outside the root");
  // The same in-process, where state would otherwise be remembered and written.
  const ws = createWorkspace({ root, env: {} });
  assert.equal((await callTool(ws, "open", { path: "a.txt" })).success, true);
  assert.equal((await callTool(ws, "read", { path: "a.txt", ids: true })).success, true);
  assert.equal(treeHash(path.join(parent, "outside"), []), before);
});

test("symlinks inside .rt/ leading out of the root are never written through", async () => {
  const parent = tempTree({ "root/a.txt": lines(50), "root/.rt/.gitignore": "*\n", "outside/keep.txt": "keep\n" });
  const root = path.join(parent, "root");
  fs.symlinkSync(path.join(parent, "outside"), path.join(root, ".rt", "ids"));
  fs.symlinkSync(path.join(parent, "outside", "view-target.json"), path.join(root, ".rt", "view.json"));
  const before = treeHash(path.join(parent, "outside"), []);
  for (const args of [
    ["open", "a.txt"],
    ["read", "a.txt", "--ids"],
  ]) {
    const r = await rt(args, { cwd: root });
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  }
  assert.equal(treeHash(path.join(parent, "outside"), []), before);
  const ws = createWorkspace({ root, env: {} });
  assert.equal((await callTool(ws, "open", { path: "a.txt" })).success, true);
  const ids = await callTool(ws, "read", { path: "a.txt", ids: true });
  assert.equal(ids.success, true);
  assert.equal((ids.line_ids as string[]).length, 50);
  assert.equal(treeHash(path.join(parent, "outside"), []), before);
  assert.equal(fs.readlinkSync(path.join(root, ".rt", "view.json")), path.join(parent, "outside", "view-target.json"));
});

test("state that cannot be written does not break any tool: it lives in memory only", async () => {
  const root = tempTree({
    "a.txt": lines(300),
    "big.log": bigText(),
    ".rt/.gitignore": "*\n",
    ".rt/ids": "a file where a directory belongs",
    ".rt/index": "same",
  });
  fs.mkdirSync(path.join(root, ".rt", "view.json")); // a directory where a file belongs
  const { code, results } = await rtBatch(
    [
      { tool: "open", args: { path: "a.txt:150" } },
      { tool: "scroll", args: { path: "a.txt", direction: "+" } },
      { tool: "read", args: { path: "a.txt", ids: true, limit: 2 } },
      { tool: "read", args: { path: "a.txt", ids: true, limit: 2 } },
      { tool: "grep", args: { pattern: "^line 7$", ids: true } },
      { tool: "open", args: { path: "big.log:100000" } },
    ],
    { cwd: root },
  );
  assert.equal(code, 0);
  for (const r of results) assert.equal(r.success, true, r.error);
  assert.match(results[1].output, /^--- a\.txt \(lines 198-297 of 300\) ---/);
  assert.deepEqual(results[3].line_ids, results[2].line_ids);
  assert.match(results[5].output, /^--- big\.log \(lines 99950-100049 of /);
  assert.ok(fs.statSync(path.join(root, ".rt", "view.json")).isDirectory());
});

test("prune keeps the newest files of a state directory and deletes the rest", () => {
  const root = tempTree({});
  const store = new StateStore(root, true);
  for (let i = 0; i < 5; i++) {
    store.writeText(`out ${i}`, "shell", `${i}.txt`);
    const t = new Date(Date.now() - (10 - i) * 1000);
    fs.utimesSync(store.file("shell", `${i}.txt`), t, t);
  }
  store.prune(2, "shell");
  assert.deepEqual(fs.readdirSync(store.file("shell")).sort(), ["3.txt", "4.txt"]);
  store.prune(2, "no-such-dir"); // nothing to do, no error
});
