// The import rules of src/ (.dependency-cruiser.cjs): no cycles, layers import
// only downward, the editing engine stays pure. Checked with dependency-cruiser
// on the real tree, and shown to fail on a planted cycle and a planted upward
// import, so that a green run means something.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const DEPCRUISE = path.join(REPO, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");

function cruise(cwd: string): { status: number | null; out: string } {
  const r = spawnSync(
    process.execPath,
    [DEPCRUISE, "src", "--config", path.join(REPO, ".dependency-cruiser.cjs"), "--output-type", "err"],
    { cwd, encoding: "utf8" },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test("src/ has no import cycle and no import against the layers", () => {
  const r = cruise(REPO);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /no dependency violations found \((\d{3,}) modules/);
});

test("the check fails on a planted cycle, an upward import and an impure editing engine", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rt-layers-"));
  try {
    const files: Record<string, string> = {
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          allowImportingTsExtensions: true,
          noEmit: true,
        },
      }),
      "package.json": JSON.stringify({ type: "module" }),
      // A cycle inside one layer, through a type-only import.
      "src/shell/a.ts": 'import type { B } from "./b.js";\nexport type A = B | 1;\n',
      "src/shell/b.ts": 'import { a } from "./c.js";\nexport type B = typeof a;\n',
      "src/shell/c.ts": 'import type { A } from "./a.js";\nexport const a: A | 2 = 2;\n',
      // A lower layer importing a higher one.
      "src/workspace/w.ts": 'import { t } from "../tools/t.js";\nexport const w = t;\n',
      "src/tools/t.ts": "export const t = 1;\n",
      "src/base/limits.ts": 'import { w } from "../workspace/w.js";\nexport const L = w;\n',
      // The editing engine importing the workspace.
      "src/edit/e.ts": 'import { w } from "../workspace/w.js";\nexport const e = w;\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    const r = cruise(dir);
    assert.notEqual(r.status, 0, r.out);
    assert.match(r.out, /no-circular: src\/shell\/a\.ts/);
    assert.match(r.out, /no-upward-from-services: src\/workspace\/w\.ts → src\/tools\/t\.ts/);
    assert.match(r.out, /no-upward-from-base: src\/base\/limits\.ts → src\/workspace\/w\.ts/);
    assert.match(r.out, /edit-engine-is-pure: src\/edit\/e\.ts → src\/workspace\/w\.ts/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
