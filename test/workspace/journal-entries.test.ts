// The edit journal keeps one file per entry (`<seq>-<hex>.entry`: a signed
// first line, then the saved bytes), written once per edit, and still reads the
// journal earlier versions wrote (a signed `index.json` and `.before` files).
// Invariants: undo walks back through both, byte for byte, newest first; the
// earlier journal shrinks as its entries are undone and is gone when empty; a
// process killed at any moment of an edit leaves a journal that undoes the last
// finished edit exactly, or refuses and writes nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { spawn } from "node:child_process";
import { REPO, soak, tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { StateStore } from "../../src/workspace/state.ts";
import { hashBytes } from "../../src/workspace/fingerprint.ts";

type Result = { success: boolean; output?: string; error?: string; remaining?: number; line_ids?: string[] };

const sha256 = (b: string) => crypto.createHash("sha256").update(b).digest("hex");

test("an earlier version's journal (index.json, .before files) is undone after the new entries, then removed", async () => {
  const versions = ["x = 0\n", "x = 1\n", "x = 2\n"];
  const dir = tempTree({ "a.py": versions[2] });
  const ws = createWorkspace({ root: dir, env: {} });
  const key = StateStore.keyFor("a.py");
  // What the previous version left after two edits: the signed index (version 2) and a saved copy per entry.
  const entries = [1, 2].map((seq) => {
    const saved = `${seq}-${"ab".repeat(8)}.before`;
    ws.state.writeNewText(versions[seq - 1], "journal", key, saved);
    return {
      seq,
      afterHash: hashBytes(Buffer.from(versions[seq])),
      existed: true,
      beforeSha256: sha256(versions[seq - 1]),
      saved,
      mode: 0o644,
      time: "2026-11-28T00:00:00.000Z",
      tool: "edit",
    };
  });
  ws.state.writeSignedJson({ version: 2, path: "a.py", next: 3, entries }, "journal", key, "index.json");
  const edit = (await callTool(ws, "edit", { path: "a.py", old_string: "x = 2", new_string: "x = 3" })) as Result;
  assert.ok(edit.success, edit.error);
  const jdir = path.join(dir, ".rt", "journal", key);
  // The new entry is numbered after the earlier ones.
  assert.ok(fs.readdirSync(jdir).some((n) => /^3-[0-9a-f]{16}\.entry$/.test(n)));
  const remaining: number[] = [];
  for (const expected of [versions[2], versions[1], versions[0]]) {
    // Each undo in a new process (a fresh workspace): nothing of the journal is held in memory.
    const u = (await callTool(createWorkspace({ root: dir, env: {} }), "undo_edit", { path: "a.py" })) as Result;
    assert.ok(u.success, u.error);
    remaining.push(u.remaining!);
    assert.equal(fs.readFileSync(path.join(dir, "a.py"), "utf8"), expected);
  }
  assert.deepEqual(remaining, [2, 1, 0]);
  const last = (await callTool(createWorkspace({ root: dir, env: {} }), "undo_edit", { path: "a.py" })) as Result;
  assert.match(last.error ?? "", /no rt edit to undo/);
  assert.deepEqual(fs.readdirSync(jdir), [], "the earlier index and its copies are removed once undone");
});

test("an earlier version's entries are pushed out by new ones like any entry (the journal keeps its limit)", async () => {
  const { JOURNAL_KEEP } = await import("../../src/base/limits.ts");
  const dir = tempTree({ "b.txt": "n 0\n" });
  const ws = createWorkspace({ root: dir, env: {} });
  const key = StateStore.keyFor("b.txt");
  ws.state.writeNewText("old\n", "journal", key, `1-${"cd".repeat(8)}.before`);
  ws.state.writeSignedJson(
    {
      version: 2,
      path: "b.txt",
      next: 2,
      entries: [
        {
          seq: 1,
          afterHash: hashBytes(Buffer.from("n 0\n")),
          existed: true,
          beforeSha256: sha256("old\n"),
          saved: `1-${"cd".repeat(8)}.before`,
          time: "2026-11-28T00:00:00.000Z",
          tool: "edit",
        },
      ],
    },
    "journal",
    key,
    "index.json",
  );
  for (let i = 0; i < JOURNAL_KEEP; i++) {
    const r = (await callTool(ws, "edit", { path: "b.txt", old_string: `n ${i}`, new_string: `n ${i + 1}` })) as Result;
    assert.ok(r.success, r.error);
  }
  const names = fs.readdirSync(path.join(dir, ".rt", "journal", key));
  assert.equal(names.length, JOURNAL_KEEP);
  assert.ok(
    names.every((n) => n.endsWith(".entry")),
    `left: ${names.filter((n) => !n.endsWith(".entry"))}`,
  );
});

test("a process killed at random moments while editing: undo restores its last finished edit, or refuses", async () => {
  const dir = tempTree({ "counter.txt": "counter = 0\n" });
  const file = path.join(dir, "counter.txt");
  const script = `
    import { createWorkspace } from ${JSON.stringify(path.join(REPO, "src/workspace/workspace.ts"))};
    import { callTool } from ${JSON.stringify(path.join(REPO, "src/tools/policy.ts"))};
    import fs from "node:fs";
    const ws = createWorkspace({ root: ${JSON.stringify(dir)}, env: {} });
    for (let i = Number(/counter = (\\d+)/.exec(fs.readFileSync(${JSON.stringify(file)}, "utf8"))[1]); ; i++) {
      await callTool(ws, "read", { path: "counter.txt", ids: true });
      const args = { path: "counter.txt", old_string: "counter = " + i, new_string: "counter = " + (i + 1) };
      const r = await callTool(ws, "edit", args);
      if (!r.success) { console.error(r.error); process.exit(1); }
      process.stdout.write(".");
    }
  `;
  for (let round = 0, rounds = soak(4, 12); round < rounds; round++) {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: REPO,
      stdio: ["ignore", "pipe", "inherit"],
    });
    // Killed once it has finished a few edits, at a random moment of the next ones.
    await new Promise<void>((resolve) => {
      let done = 0;
      child.stdout.on("data", (d: Buffer) => {
        done += d.length;
        if (done >= 3) resolve();
      });
      child.on("close", () => resolve());
    });
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 60)));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
    const now = fs.readFileSync(file, "utf8");
    const n = Number(/^counter = (\d+)\n$/.exec(now)?.[1]);
    assert.ok(n >= 3, `round ${round}: the file is ${JSON.stringify(now)}`);
    // The line IDs are readable by a new process.
    const read = (await callTool(createWorkspace({ root: dir, env: {} }), "read", {
      path: "counter.txt",
      ids: true,
    })) as Result;
    assert.ok(read.success && read.line_ids?.length === 1, read.error);
    const u = (await callTool(createWorkspace({ root: dir, env: {} }), "undo_edit", { path: "counter.txt" })) as Result;
    if (u.success) {
      assert.equal(fs.readFileSync(file, "utf8"), `counter = ${n - 1}\n`, `round ${round}`);
    } else {
      // Killed after its entry was written and before the file was: that entry is the newest,
      // and names bytes never written.
      assert.match(u.error ?? "", /was changed after rt's last edit/);
      assert.equal(fs.readFileSync(file, "utf8"), now);
      // The next edit's entry is newest again: undo works from there.
      const e = (await callTool(createWorkspace({ root: dir, env: {} }), "edit", {
        path: "counter.txt",
        old_string: `counter = ${n}`,
        new_string: `counter = ${n + 1}`,
      })) as Result;
      assert.ok(e.success, e.error);
      const again = (await callTool(createWorkspace({ root: dir, env: {} }), "undo_edit", {
        path: "counter.txt",
      })) as Result;
      assert.ok(again.success, again.error);
      assert.equal(fs.readFileSync(file, "utf8"), now);
    }
  }
});
