// The load budget: the bytes of JavaScript that `rt open` and `rt grep` load,
// from the module list Node itself reports (a module.register hook records every
// module it loads), below a stated ceiling. A stray top-level import (the edit
// engine in a reading tool, the registry, zod imported in the form that defeats
// esbuild's tree shaking) makes a short command load hundreds of KB more, and
// fails here rather than only in a benchmark. The ceilings leave about 15%
// above what the commands load today; raise one only with a reason (and the
// start-up benchmark, bench/run.mjs --only small,grep, run side by side).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { CLI, REPO, tempTree } from "../helpers.ts";

/** At most this many bytes of JavaScript (files of rt's dist/ and of node_modules) for `rt open FILE:LINE`. */
const OPEN_BUDGET = 470 * 1024;
/** The same for `rt grep PATTERN`. */
const GREP_BUDGET = 490 * 1024;

/** The files (not Node's built-ins) that `rt ARGS` loaded, with their sizes, in load order. */
export function loadedFiles(args: string[], cwd: string): { file: string; bytes: number }[] {
  const dir = tempTree({}, "rt-load-log-");
  const log = path.join(dir, "loads.txt");
  const hooks = path.join(dir, "hooks.mjs");
  fs.writeFileSync(
    hooks,
    `import fs from "node:fs";\nexport async function load(url, ctx, next) { const r = await next(url, ctx); fs.appendFileSync(${JSON.stringify(log)}, url + "\\n"); return r; }\n`,
  );
  const preload = path.join(dir, "preload.mjs");
  fs.writeFileSync(
    preload,
    `import { register } from "node:module";\nregister(${JSON.stringify(`file://${hooks}`)});\n`,
  );
  const r = spawnSync(process.execPath, ["--import", `file://${preload}`, CLI, ...args], {
    cwd,
    env: { ...process.env, RT_ROOT: cwd },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  const urls = [
    ...new Set(
      fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter((u) => u.startsWith("file:")),
    ),
  ];
  return urls.map((u) => fileURLToPath(u)).map((file) => ({ file, bytes: fs.statSync(file).size }));
}

const sum = (files: { bytes: number }[]) => files.reduce((n, f) => n + f.bytes, 0);
const listing = (files: { file: string; bytes: number }[]) =>
  files.map((f) => `${f.bytes} ${path.relative(REPO, f.file)}`).join("\n");

function tree(): string {
  return tempTree({
    "small.py": Array.from({ length: 61 }, (_, i) => `x${i} = ${i}\n`).join(""),
    "src/a.ts": "// TODO: one\nconst a = 1;\n",
    "src/b.ts": "// TODO: two\n",
  });
}

test(`rt open loads at most ${OPEN_BUDGET / 1024} KB of JavaScript, and of the tools only open's module`, () => {
  const files = loadedFiles(["open", "small.py:10"], tree());
  assert.ok(
    files.some((f) => f.file === CLI),
    "the hook saw dist/cli.js",
  );
  assert.ok(sum(files) <= OPEN_BUDGET, `rt open loaded ${sum(files)} bytes, over ${OPEN_BUDGET}:\n${listing(files)}`);
  const chunks = files.map((f) => path.basename(f.file));
  assert.ok(
    chunks.some((c) => c.startsWith("open-")),
    listing(files),
  );
  for (const other of ["grep-", "editLines-", "edit-", "bash-", "sqlQuery-", "read-"])
    assert.ok(!chunks.some((c) => c.startsWith(other)), `rt open loaded ${other}*:\n${listing(files)}`);
});

test(`rt grep loads at most ${GREP_BUDGET / 1024} KB of JavaScript`, () => {
  const files = loadedFiles(["grep", "TODO"], tree());
  assert.ok(sum(files) <= GREP_BUDGET, `rt grep loaded ${sum(files)} bytes, over ${GREP_BUDGET}:\n${listing(files)}`);
  assert.ok(!files.some((f) => path.basename(f.file).startsWith("open-")), listing(files));
});

test("the budget can fail: loading the whole registry (every tool's module) is far over it", () => {
  // `rt call` looks its tool up in the registry, which imports every tool's module.
  const root = tree();
  const files = loadedFiles(["call", "open", "--args", '{"path": "small.py", "line": 10}'], root);
  assert.ok(sum(files) > OPEN_BUDGET, `rt call open loaded only ${sum(files)} bytes`);
});
