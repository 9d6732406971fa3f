import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { REPO, soak, tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/index.ts";
import { applyEdit } from "../../src/workspace/applyEdit.ts";
import { withLines } from "../../src/edit/fileModel.ts";

test("a process killed at random moments while writing leaves every file either old or new", async () => {
  const dir = tempTree();
  const A = "A".repeat(4 << 20);
  const B = "B".repeat(4 << 20);
  const file = path.join(dir, "target.txt");
  fs.writeFileSync(file, A);
  const script = `
    import { writeFileAtomic } from ${JSON.stringify(path.join(REPO, "src/workspace/atomic.ts"))};
    const A = "A".repeat(4 << 20), B = "B".repeat(4 << 20);
    for (let i = 0; ; i++) writeFileAtomic(${JSON.stringify(file)}, i % 2 ? A : B);
  `;
  // 5 kills in `npm test` (each starts a writer process), 12 in the soak run.
  for (let round = 0, rounds = soak(5, 12); round < rounds; round++) {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: REPO,
      stdio: "ignore",
    });
    await new Promise((r) => setTimeout(r, 250 + Math.floor(Math.random() * 250)));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
    const content = fs.readFileSync(file, "utf8");
    assert.ok(content === A || content === B, `round ${round}: file is a mix (${content.length} bytes)`);
  }
});

test("an edit whose file changed after its snapshot fails (no lost update); ID-based edits re-resolve instead", async () => {
  const dir = tempTree({ "a.txt": "one\ntwo\n" });
  const ws = createWorkspace({ root: dir });
  let calls = 0;
  await assert.rejects(
    applyEdit(
      ws,
      "a.txt",
      (snap) => {
        calls++;
        fs.writeFileSync(path.join(dir, "a.txt"), "someone else\n");
        return { model: withLines(snap.model, ["ONE", "two"]), start: 1, end: 1 };
      },
      { tool: "test" },
    ),
    /changed since it was read/,
  );
  assert.equal(calls, 1);
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "someone else\n");

  fs.writeFileSync(path.join(dir, "a.txt"), "one\ntwo\n");
  calls = 0;
  await applyEdit(
    ws,
    "a.txt",
    (snap) => {
      if (calls++ === 0) fs.writeFileSync(path.join(dir, "a.txt"), "zero\none\ntwo\n");
      return {
        model: withLines(
          snap.model,
          snap.model.lines.map((l) => (l === "two" ? "TWO" : l)),
        ),
        start: 1,
        end: 1,
      };
    },
    { tool: "test", replanOnConflict: true },
  );
  assert.equal(calls, 2);
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "zero\none\nTWO\n");
});

test("parallel rt edits of one file by line ID: none is lost", async () => {
  const dir = tempTree({ "a.txt": Array.from({ length: 8 }, (_, i) => `line ${i}`).join("\n") + "\n" });
  const ws = createWorkspace({ root: dir });
  const { callTool } = await import("../../src/index.ts");
  const read = await callTool(ws, "read", { path: "a.txt", ids: true });
  const ids = read.line_ids as string[];
  const { rtCall } = await import("../helpers.ts");
  const results = await Promise.all(
    ids.map((id, i) =>
      rtCall("edit_lines", { path: "a.txt", changes: [{ line_id: id, new_content: `edited ${i}` }] }, { cwd: dir }),
    ),
  );
  for (const r of results) assert.equal(r.result.success, true, r.result.error);
  assert.equal(
    fs.readFileSync(path.join(dir, "a.txt"), "utf8"),
    Array.from({ length: 8 }, (_, i) => `edited ${i}`).join("\n") + "\n",
  );
});
