// State files are replaced without a rename over the old file: the old one is
// renamed aside to `<name>.prev`, the new one renamed to the free name, the old
// one unlinked (on ext4 a rename over an existing file writes the new file's
// data out at once, milliseconds per state file). Invariants: an edit renames
// nothing over an existing file under `.rt/`; a state file found only set
// aside (a process killed between the two renames) is read as the state; what
// is planted at the aside name is never written through.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { StateStore } from "../../src/workspace/state.ts";
import { ConfinedFs } from "../../src/workspace/confinedFs.ts";

/** A TypeScript file of about `n` lines (the shape bench/edit-speed.mjs edits). */
function tsFile(n: number): string {
  const out: string[] = [];
  for (let i = 0; out.length + 6 <= n; i++)
    out.push(`export function area${i}(k: number): number {`, `  const base = k * ${i};`, `  return ${i};`, "}", "");
  return out.join("\n") + "\n";
}

type Result = { success: boolean; output?: string; error?: string; line_ids?: string[] };

/** The renames `work` makes, with whether something already had the target name. */
async function renamesDuring(work: () => Promise<unknown>): Promise<Array<{ to: string; replaced: boolean }>> {
  const seen: Array<{ to: string; replaced: boolean }> = [];
  const rename = fs.renameSync;
  fs.renameSync = ((a: fs.PathLike, b: fs.PathLike) => {
    seen.push({ to: String(b), replaced: fs.existsSync(b) });
    return rename(a, b);
  }) as typeof fs.renameSync;
  try {
    await work();
  } finally {
    fs.renameSync = rename;
  }
  return seen;
}

test("an edit renames nothing over an existing state file, adds one journal file, leaves nothing set aside", async () => {
  const dir = tempTree({ "big.ts": tsFile(5000) });
  const ws = createWorkspace({ root: dir, env: {} });
  assert.ok(((await callTool(ws, "read", { path: "big.ts", ids: true })) as Result).success);
  const first = (await callTool(ws, "edit", {
    path: "big.ts",
    old_string: "  return 7;",
    new_string: "  return 7 + 1;",
  })) as Result;
  assert.ok(first.success, first.error);
  const key = StateStore.keyFor("big.ts");
  const journal = path.join(dir, ".rt", "journal", key);
  const before = new Set(fs.readdirSync(journal));
  const renames = await renamesDuring(async () => {
    const r = (await callTool(ws, "edit", {
      path: "big.ts",
      old_string: "  return 9;",
      new_string: "  return 9 + 1;",
    })) as Result;
    assert.ok(r.success, r.error);
  });
  // (Targets may be named through /proc/self/fd/N of the directory: told apart by their names.)
  const state = renames.filter((r) => path.basename(r.to) !== "big.ts");
  assert.deepEqual(
    state.filter((r) => r.replaced),
    [],
    "state renamed over an existing file",
  );
  // The line-ID record: set aside, then its new version to the free name.
  assert.deepEqual(
    state.map((r) => path.basename(r.to)),
    [`${key}.json.prev`, `${key}.json`],
  );
  // The user's file is still replaced by one rename over it (with fsync: its durability is unchanged).
  assert.deepEqual(
    renames.filter((r) => !state.includes(r)).map((r) => [path.basename(r.to), r.replaced]),
    [["big.ts", true]],
  );
  const added = fs.readdirSync(journal).filter((n) => !before.has(n));
  assert.equal(added.length, 1, `journal files added by one edit: ${added.join(", ")}`);
  assert.match(added[0], /^\d+-[0-9a-f]{16}\.entry$/);
  assert.ok(!fs.existsSync(path.join(journal, "index.json")), "no journal index is written");
  const leftover = (d: string): string[] =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? leftover(path.join(d, e.name)) : e.name.endsWith(".prev") ? [e.name] : []));
  assert.deepEqual(leftover(path.join(dir, ".rt")), []);
});

test("a state file found only set aside (killed between its two renames) is the state: IDs and undo survive", async () => {
  const dir = tempTree({ "a.ts": tsFile(60), "b.ts": tsFile(30) });
  const ws = createWorkspace({ root: dir, env: {} });
  // Read, then edited: the edited line's ID is new, so IDs made afresh would differ from the stored ones.
  assert.ok(((await callTool(ws, "read", { path: "a.ts", ids: true })) as Result).success);
  assert.ok(((await callTool(ws, "read", { path: "b.ts", ids: true })) as Result).success);
  const editB = (await callTool(ws, "edit_lines", {
    path: "b.ts",
    command: "insert",
    insert_line: 0,
    new_content: "// top",
  })) as Result;
  assert.ok(editB.success, editB.error);
  const edit = (await callTool(ws, "edit", {
    path: "a.ts",
    old_string: "  return 3;",
    new_string: "  return 3 + 1;",
  })) as Result;
  assert.ok(edit.success, edit.error);
  const ids = ((await callTool(ws, "read", { path: "a.ts", ids: true })) as Result).line_ids!;
  const idsB = ((await callTool(ws, "read", { path: "b.ts", ids: true })) as Result).line_ids!;
  for (const rel of ["a.ts", "b.ts"]) {
    const record = path.join(dir, ".rt", "ids", `${StateStore.keyFor(rel)}.json`);
    fs.renameSync(record, `${record}.prev`);
  }
  // A new process: the IDs are the ones stored (a record made afresh would number the lines anew).
  const fresh = createWorkspace({ root: dir, env: {} });
  assert.deepEqual(((await callTool(fresh, "read", { path: "a.ts", ids: true })) as Result).line_ids, ids);
  // Many records read at once (grep notes each file it shows): the set-aside one is found too.
  const grep = (await callTool(createWorkspace({ root: dir, env: {} }), "grep", {
    pattern: "return 3",
    path: "b.ts",
  })) as Result;
  assert.ok(grep.success, grep.error);
  const again = createWorkspace({ root: dir, env: {} });
  assert.deepEqual(((await callTool(again, "read", { path: "b.ts", ids: true })) as Result).line_ids, idsB);
  const undo = (await callTool(createWorkspace({ root: dir, env: {} }), "undo_edit", { path: "a.ts" })) as Result;
  assert.ok(undo.success, undo.error);
  assert.equal(fs.readFileSync(path.join(dir, "a.ts"), "utf8"), tsFile(60));
});

test("a symlink out or a directory planted at the aside name is never written through, never stops a write", () => {
  const parent = tempTree({ "root/.keep": "", "outside/secret": "keep me\n" });
  const root = path.join(parent, "root");
  const files = new ConfinedFs(root);
  const outside = path.join(parent, "outside", "secret");
  files.writeAtomic("s.json", "one", { fsync: false, aside: true });
  fs.symlinkSync(outside, path.join(root, "s.json.prev"));
  files.writeAtomic("s.json", "two", { fsync: false, aside: true });
  assert.equal(fs.readFileSync(path.join(root, "s.json"), "utf8"), "two");
  assert.equal(fs.readFileSync(outside, "utf8"), "keep me\n");
  assert.ok(!fs.existsSync(path.join(root, "s.json.prev")), "the planted link was replaced, then removed");
  fs.mkdirSync(path.join(root, "s.json.prev"));
  fs.writeFileSync(path.join(root, "s.json.prev", "x"), "x");
  files.writeAtomic("s.json", "three", { fsync: false, aside: true });
  assert.equal(fs.readFileSync(path.join(root, "s.json"), "utf8"), "three");
  assert.equal(fs.readFileSync(path.join(root, "s.json.prev", "x"), "utf8"), "x");
});
