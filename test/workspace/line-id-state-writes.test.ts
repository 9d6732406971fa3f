// Line-ID state is written once per edit: the record of a file of a few
// thousand lines carries its line hashes inline (signed, base64) instead of in
// a second file beside it, so an edit renames one state file, not two. The
// record read back by a fresh process (a new workspace) gives the same IDs.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";

/** A TypeScript file of about `n` lines (the shape bench/edit-speed.mjs edits). */
function tsFile(n: number): string {
  const out: string[] = [];
  for (let i = 0; out.length + 12 <= n; i++) {
    out.push(`export interface Shape${i} {`, "  id: number;", "  label: string;", "}");
    out.push(
      `export function area${i}(s: Shape${i}, k: number): number {`,
      `  const base = s.id * ${i} + k;`,
      `  if (base > ${i}) {`,
    );
    out.push("    return base - s.label.length;", "  }", `  return ${i};`, "}", "");
  }
  return out.join("\n") + "\n";
}

function stateFiles(dir: string): string[] {
  const ids = path.join(dir, ".rt", "ids");
  return fs.existsSync(ids) ? fs.readdirSync(ids).sort() : [];
}

test("an edit of a 5,000-line file writes one line-ID state file (hashes inline), and its IDs survive a restart", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rt-idstate-"));
  try {
    fs.writeFileSync(path.join(dir, "big.ts"), tsFile(5000));
    const ws = createWorkspace({ root: dir, env: {} });
    const first = (await callTool(ws, "read", { path: "big.ts", offset: 4990, limit: 5, ids: true })) as {
      success: boolean;
      output: string;
    };
    assert.ok(first.success);
    const renames: string[] = [];
    const rename = fs.renameSync;
    fs.renameSync = ((a: fs.PathLike, b: fs.PathLike) => {
      renames.push(String(b));
      return rename(a, b);
    }) as typeof fs.renameSync;
    let r: { success: boolean };
    try {
      r = (await callTool(ws, "edit", {
        path: "big.ts",
        old_string: "  return 37;\n}",
        new_string: "  return 37 + 1;\n}",
      })) as { success: boolean };
    } finally {
      fs.renameSync = rename;
    }
    assert.ok(r.success);
    const idRenames = renames.filter((p) => /\.(json|hashes)$/.test(p) && !p.endsWith("index.json"));
    assert.equal(idRenames.length, 1, `line-ID state renamed per edit: ${idRenames.join(", ")}`);
    assert.deepEqual(
      stateFiles(dir).filter((f) => f.endsWith(".hashes")),
      [],
      "no hashes file beside the record",
    );
    const after = (await callTool(ws, "read", { path: "big.ts", offset: 4990, limit: 5, ids: true })) as {
      output: string;
    };
    // A fresh workspace (another process) reads the record back: the same IDs.
    const again = (await callTool(createWorkspace({ root: dir, env: {} }), "read", {
      path: "big.ts",
      offset: 4990,
      limit: 5,
      ids: true,
    })) as { output: string };
    assert.match(after.output, /LID:/);
    assert.equal(again.output, after.output);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
