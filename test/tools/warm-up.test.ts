// Warming a long-running process's tools (src/tools/shared/warmUp.ts): with `edit` offered, the
// warm-up runs one real edit in a throwaway workspace, so the edit path's code (its lock, journal,
// atomic write) has run before the first call; the user's workspace is left as it was. Which
// functions ran is read from V8's own coverage of a child process.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { REPO, tempTree, treeHash } from "../helpers.ts";

/** The functions of the child's coverage that ran at least once, as "file.ts:name". */
function ranFunctions(dir: string): Set<string> {
  const out = new Set<string>();
  for (const f of fs.readdirSync(dir)) {
    const cov = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as {
      result: Array<{ url: string; functions: Array<{ functionName: string; ranges: Array<{ count: number }> }> }>;
    };
    for (const s of cov.result) {
      if (!s.url.includes("/src/")) continue;
      for (const fn of s.functions)
        if (fn.functionName && fn.ranges[0].count > 0) out.add(`${path.basename(s.url)}:${fn.functionName}`);
    }
  }
  return out;
}

test("warmTools with edit offered runs the edit path (lock, journal, atomic write) in a throwaway workspace, not in the user's", () => {
  const root = tempTree({ "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 2;\n" });
  const before = treeHash(root, []);
  const cov = fs.mkdtempSync(path.join(os.tmpdir(), "rt-cov-"));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rt-warm-tmp-"));
  const script = `
    const { createWorkspace } = await import(${JSON.stringify(path.join(REPO, "src/workspace/workspace.ts"))});
    const { TOOLS } = await import(${JSON.stringify(path.join(REPO, "src/tools/registry.ts"))});
    const { warmTools } = await import(${JSON.stringify(path.join(REPO, "src/tools/shared/warmUp.ts"))});
    const ws = createWorkspace({ root: ${JSON.stringify(root)}, env: { ...process.env, RT_ROOT: undefined } });
    await warmTools(ws, TOOLS);
  `;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: REPO,
    env: { ...process.env, NODE_V8_COVERAGE: cov, TMPDIR: tmp },
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const ran = ranFunctions(cov);
  for (const fn of ["fileLock.ts:withFileLock", "applyEdit.ts:applyEdit", "journal.ts:record"])
    assert.ok(ran.has(fn), `${fn} did not run during the warm-up`);
  assert.equal(treeHash(root, []), before, "the user's workspace changed");
  assert.deepEqual(
    fs.readdirSync(tmp).filter((n) => n.startsWith("rt-")),
    [],
    "the throwaway workspace was left behind",
  );
});
