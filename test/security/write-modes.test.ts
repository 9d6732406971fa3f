// Mode bits the confined writer carries over when it replaces a file.
//
// rt replaces a file through a temp file renamed over it, so the new file is
// the user's whoever owned the old one, and its mode is copied from the old
// file. Copying set-user-ID / set-group-ID as well would hand another user's
// setuid file to the user's own uid with content rt wrote (as root: a setuid
// root file), which write(2) never does (it clears both bits when an
// unprivileged process writes). Invariant: whatever rt writes or restores
// (edit, edit_range, write over a file, undo) has no setuid, setgid or sticky
// bit, keeps the permission bits it had, and belongs to the user.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rtBatch, tempTree } from "../helpers.ts";

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

test("edits, writes and undo never leave a setuid, setgid or sticky bit on a file (another user's setuid file does not become the user's)", async () => {
  const modes = [0o6755, 0o4755, 0o2755, 0o1755, 0o4700, 0o2644];
  const files: Record<string, string> = {};
  for (const [i, _] of modes.entries())
    for (const tool of ["edit", "lines", "write"]) files[`${tool}${i}.sh`] = "echo one\necho end\n";
  const root = tempTree(files, "rt-modes-");
  for (const [i, mode] of modes.entries()) {
    for (const tool of ["edit", "lines", "write"]) {
      const p = path.join(root, `${tool}${i}.sh`);
      // As root, the files belong to another user (chown first: it clears the bits chmod then sets).
      if (isRoot) fs.chownSync(p, NOBODY, NOBODY);
      fs.chmodSync(p, mode);
      assert.equal(fs.statSync(p).mode & 0o7777, mode, "the test's own setup");
    }
  }
  const calls: Array<{ tool: string; args: unknown }> = [];
  for (const [i] of modes.entries()) {
    calls.push({ tool: "edit", args: { path: `edit${i}.sh`, old_string: "echo one", new_string: "echo two" } });
    calls.push({ tool: "read", args: { path: `lines${i}.sh` } });
    calls.push({
      tool: "edit_range",
      args: { path: `lines${i}.sh`, start_line: 1, end_line: 1, new_text: "echo two" },
    });
    calls.push({ tool: "read", args: { path: `write${i}.sh` } });
    calls.push({ tool: "write", args: { path: `write${i}.sh`, content: "echo two\necho end\n" } });
  }
  const r = await rtBatch(calls, { cwd: root });
  for (const [n, res] of r.results.entries())
    assert.equal(res.success, true, `${JSON.stringify(calls[n])}: ${res.error}`);
  const uid = process.getuid?.();
  for (const [i, mode] of modes.entries()) {
    for (const tool of ["edit", "lines", "write"]) {
      const p = path.join(root, `${tool}${i}.sh`);
      const st = fs.statSync(p);
      assert.equal(fs.readFileSync(p, "utf8"), "echo two\necho end\n", `${tool}${i}.sh was written`);
      assert.equal(
        (st.mode & 0o7777).toString(8),
        (mode & 0o777).toString(8),
        `${tool}${i}.sh (was ${mode.toString(8)}): no special bit after ${tool}, permissions kept`,
      );
      if (uid !== undefined) assert.equal(st.uid, uid);
    }
  }
  // Undo restores the bytes, never the special bits.
  const u = await rtBatch(
    modes.map((_, i) => ({ tool: "undo_edit", args: { path: `edit${i}.sh` } })),
    { cwd: root },
  );
  for (const res of u.results) assert.equal(res.success, true, res.error);
  for (const [i, mode] of modes.entries()) {
    const p = path.join(root, `edit${i}.sh`);
    assert.equal(fs.readFileSync(p, "utf8"), "echo one\necho end\n");
    assert.equal((fs.statSync(p).mode & 0o7777).toString(8), (mode & 0o777).toString(8), `edit${i}.sh after undo`);
  }
});
