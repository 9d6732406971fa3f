// The full-screen UI's libraries (Ink, React, marked, marked-terminal,
// wrap-ansi) load only when the UI starts: `rt open` and the other commands
// never load them (start-up time, BENCHMARKS.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { CLI, REPO, tempTree, cliBundleText, staticGraph } from "../helpers.ts";

const TUI_PACKAGES = ["ink", "react", "marked", "marked-terminal", "wrap-ansi", "yoga-layout", "cli-highlight"];

test("the CLI bundle requires none of the UI's packages at start-up; the UI imports them on demand", () => {
  const cli = cliBundleText();
  const start = staticGraph(CLI).packages;
  for (const p of TUI_PACKAGES) assert.ok(!start.has(p), `dist/cli.js imports ${p} at start-up`);
  for (const p of ["ink", "react", "marked", "marked-terminal", "wrap-ansi"])
    assert.ok(cli.includes(`import("${p}")`), `the UI loads ${p} on demand`);
});

test("at run time, `rt open` loads no module of the UI's packages (every module load recorded)", () => {
  const root = tempTree({ "small.py": "x = 1\n".repeat(20) });
  const log = path.join(tempTree({}, "rt-load-log-"), "loads.txt");
  // Records every ES module resolved (module.register hooks) and every CommonJS require.
  const hooks = path.join(path.dirname(log), "hooks.mjs");
  fs.writeFileSync(
    hooks,
    `import fs from "node:fs";\nexport async function resolve(spec, ctx, next) { const r = await next(spec, ctx); fs.appendFileSync(${JSON.stringify(log)}, "import " + r.url + "\\n"); return r; }\n`,
  );
  const preload = path.join(path.dirname(log), "preload.mjs");
  fs.writeFileSync(
    preload,
    `import { register, default as Module } from "node:module";\nimport fs from "node:fs";\nregister(${JSON.stringify(`file://${hooks}`)});\n` +
      `const load = Module._load;\nModule._load = function (request, ...rest) { fs.appendFileSync(${JSON.stringify(log)}, "require " + request + "\\n"); return load.call(this, request, ...rest); };\n`,
  );
  const open = spawnSync(process.execPath, ["--import", preload, CLI, "open", "small.py:10"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, RT_ROOT: undefined },
  });
  assert.equal(open.status, 0, open.stderr);
  assert.match(open.stdout, /small\.py/);
  const loads = fs.readFileSync(log, "utf8");
  assert.match(loads, /import file:.*\/dist\/cli\.js/, "the recorder saw the CLI's own loads");
  for (const p of TUI_PACKAGES)
    assert.ok(!new RegExp(`node_modules/${p}/|require ${p}\\b`).test(loads), `rt open loaded ${p}:\n${loads}`);

  // The same recorder does see them when the UI's modules are imported (the check can fail).
  fs.writeFileSync(log, "");
  const ui = spawnSync(
    process.execPath,
    ["--import", preload, "--input-type=module", "-e", `await import("ink"); await import("marked-terminal");`],
    { cwd: REPO, encoding: "utf8" },
  );
  assert.equal(ui.status, 0, ui.stderr);
  assert.match(fs.readFileSync(log, "utf8"), /node_modules\/ink\//);
});
