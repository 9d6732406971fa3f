// The lsp tool against the real servers from npm (typescript-language-server
// with rt's TypeScript, pyright) on small projects in temp dirs: diagnostics,
// an edit's new errors, definition and references across files, hover,
// symbols, a crash and the restart, idle shutdown, the request timeout, the
// configuration's servers and their trust, the read-only sandbox.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace, type Workspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { lspManager } from "../../src/lsp/manager.ts";
import { rt, tempTree, treeHash } from "../helpers.ts";

const workspaces: Workspace[] = [];
function ws(root: string, opts: Parameters<typeof createWorkspace>[0] = {}): Workspace {
  const w = createWorkspace({
    root,
    state: true,
    ...opts,
    env: { ...process.env, XDG_CONFIG_HOME: path.join(root, ".no-user-config"), ...(opts.env ?? {}) },
  });
  workspaces.push(w);
  return w;
}
after(async () => {
  for (const w of workspaces) await lspManager(w).stopAll();
});

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tsProject() {
  return tempTree({
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler", noEmit: true },
      include: ["src"],
    }),
    "src/math.ts":
      "export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport interface Point {\n  x: number;\n  y: number;\n}\n",
    "src/main.ts":
      'import { add, type Point } from "./math";\n\nconst total: number = add(1, 2);\nconst origin: Point = { x: 0, y: 0 };\nconsole.log(total, origin);\n',
  });
}

function pyProject() {
  return tempTree({
    "pkg/__init__.py": "",
    "pkg/shapes.py":
      'def area(width: int, height: int) -> int:\n    """Area of a rectangle."""\n    return width * height\n',
    "pkg/main.py": "from pkg.shapes import area\n\nresult: int = area(2, 3)\nprint(result)\n",
  });
}

test("TypeScript: a clean file has no diagnostics; an edit that introduces a type error reports it, and diagnostics list it", async () => {
  const root = tsProject();
  const w = ws(root);
  const clean = await callTool(w, "lsp", { operation: "diagnostics", path: "src/main.ts" });
  assert.equal(clean.success, true, clean.error);
  assert.equal(clean.output, "no diagnostics in src/main.ts");
  assert.equal(clean.server_started, true);
  // A change that keeps the file clean: typescript-language-server publishes nothing for it; the answer still comes, well before the request timeout.
  fs.appendFileSync(path.join(root, "src/main.ts"), "// a comment\n");
  const t0 = performance.now();
  const stillClean = await callTool(w, "lsp", { operation: "diagnostics", path: "src/main.ts" });
  assert.equal(stillClean.output, "no diagnostics in src/main.ts");
  assert.ok(performance.now() - t0 < 10_000);
  // The agent's way of calling (edit diagnostics on): the edit's result names the error it introduced.
  const edit = await callTool(
    w,
    "edit",
    {
      path: "src/main.ts",
      old_string: "const total: number = add(1, 2);",
      new_string: "const total: string = add(1, 2);",
    },
    { editDiagnostics: true },
  );
  assert.equal(edit.success, true, edit.error);
  assert.match(
    edit.output,
    /typescript language server: this edit introduced 1 error:\nsrc\/main\.ts:3:7: error: Type 'number' is not assignable to type 'string'\. \[typescript 2322\]/,
  );
  assert.equal((edit.new_diagnostics as unknown[]).length, 1);
  const d = await callTool(w, "lsp", { operation: "diagnostics", path: "src/main.ts" });
  assert.equal(d.server_started, false);
  assert.match(
    d.output,
    /^src\/main\.ts:3:7: error: Type 'number' is not assignable to type 'string'\. \[typescript 2322\]\n1 error, 0 others in src\/main\.ts$/,
  );
  assert.deepEqual(
    (d.diagnostics as Array<Record<string, unknown>>).map((x) => [x.line, x.column, x.severity, x.code]),
    [[3, 7, "error", 2322]],
  );
  // Another edit that fixes nothing and breaks nothing new: the old error is not reported again.
  const second = await callTool(
    w,
    "edit",
    { path: "src/main.ts", old_string: "console.log(total, origin);", new_string: "console.log(origin, total);" },
    { editDiagnostics: true },
  );
  assert.equal(second.success, true, second.error);
  assert.doesNotMatch(second.output, /introduced/);
  // The CLI's way (the default: off): no diagnostics added, though the server runs.
  const cli = await callTool(w, "edit", {
    path: "src/main.ts",
    old_string: "const origin: Point = { x: 0, y: 0 };",
    new_string: "const origin: Point = { x: 0 };",
  });
  assert.equal(cli.success, true, cli.error);
  assert.doesNotMatch(cli.output, /introduced/);
});

test("TypeScript: definition and references across files, hover, symbols, workspace_symbols; positions by column or by symbol name", async () => {
  const root = tsProject();
  const w = ws(root);
  const def = await callTool(w, "lsp", { operation: "definition", path: "src/main.ts", line: 3, symbol: "add" });
  assert.equal(def.success, true, def.error);
  assert.equal(def.output, "src/math.ts:1:17: export function add(a: number, b: number): number {");
  const byColumn = await callTool(w, "lsp", { operation: "definition", path: "src/main.ts", line: 3, column: 23 });
  assert.equal(byColumn.output, def.output);
  const refs = await callTool(w, "lsp", { operation: "references", path: "src/math.ts", line: 1, symbol: "add" });
  assert.deepEqual(
    refs.output.split("\n"),
    [
      "src/math.ts:1:17: export function add(a: number, b: number): number {",
      'src/main.ts:1:10: import { add, type Point } from "./math";',
      "src/main.ts:3:23: const total: number = add(1, 2);",
    ].sort((a, b) => refs.output.indexOf(a) - refs.output.indexOf(b)),
  );
  assert.equal((refs.locations as unknown[]).length, 3);
  const hover = await callTool(w, "lsp", { operation: "hover", path: "src/main.ts", line: 3, symbol: "add" });
  assert.match(hover.output, /add\(a: number, b: number\): number/);
  const syms = await callTool(w, "lsp", { operation: "symbols", path: "src/math.ts" });
  assert.match(
    syms.output,
    /^src\/math\.ts: 4 symbols\n1-3 function add\n5-8 interface Point\n6-6 {3}property x\n7-7 {3}property y$/,
  );
  const wsyms = await callTool(w, "lsp", { operation: "workspace_symbols", query: "Point" });
  assert.match(wsyms.output, /src\/math\.ts:5-8: interface Point/);
  // Bad positions: clear errors.
  assert.match(
    (await callTool(w, "lsp", { operation: "hover", path: "src/main.ts", line: 3, symbol: "nothere" })).error!,
    /"nothere" is not on line 3 of src\/main\.ts/,
  );
  assert.match(
    (await callTool(w, "lsp", { operation: "hover", path: "src/main.ts", line: 99, column: 1 })).error!,
    /line 99 is past the end of src\/main\.ts \(5 lines\)/,
  );
  assert.match((await callTool(w, "lsp", { operation: "hover", path: "src/main.ts" })).error!, /needs a position/);
  assert.match((await callTool(w, "lsp", { operation: "diagnostics", path: "README.md" })).error!, /not found/);
});

test("Python (pyright): diagnostics, definition and references across files, hover with the docstring", async () => {
  const root = pyProject();
  const w = ws(root);
  const clean = await callTool(w, "lsp", { operation: "diagnostics", path: "pkg" });
  assert.equal(clean.success, true, clean.error);
  assert.equal(clean.output, "no diagnostics in 3 files under pkg");
  fs.appendFileSync(path.join(root, "pkg/main.py"), "name: str = area(1, 1)\n");
  const d = await callTool(w, "lsp", { operation: "diagnostics", path: "pkg/main.py" });
  assert.match(d.output, /^pkg\/main\.py:5:13: error: Type "int" is not assignable to declared type "str"/);
  const def = await callTool(w, "lsp", { operation: "definition", path: "pkg/main.py", line: 3, symbol: "area" });
  assert.equal(def.output, "pkg/shapes.py:1:5: def area(width: int, height: int) -> int:");
  const refs = await callTool(w, "lsp", { operation: "references", path: "pkg/shapes.py", line: 1, symbol: "area" });
  const lines = refs.output.split("\n").sort();
  assert.deepEqual(lines, [
    "pkg/main.py:1:24: from pkg.shapes import area",
    "pkg/main.py:3:15: result: int = area(2, 3)",
    "pkg/main.py:5:13: name: str = area(1, 1)",
    "pkg/shapes.py:1:5: def area(width: int, height: int) -> int:",
  ]);
  const hover = await callTool(w, "lsp", { operation: "hover", path: "pkg/main.py", line: 3, symbol: "area" });
  assert.match(hover.output, /def area\([\s\S]*-> int[\s\S]*Area of a rectangle\./);
});

test("a crashed server is restarted on the next call; an idle one is shut down", async () => {
  const root = tsProject();
  const w = ws(root, { env: { RT_LSP_IDLE_TIMEOUT_MS: "1500" } });
  const first = await callTool(w, "lsp", { operation: "hover", path: "src/main.ts", line: 3, symbol: "add" });
  assert.equal(first.success, true, first.error);
  const [running] = lspManager(w).running();
  const pid = running.client.pid;
  assert.ok(alive(pid));
  process.kill(pid!, "SIGKILL");
  for (let i = 0; i < 100 && !running.client.dead; i++) await new Promise((r) => setTimeout(r, 20));
  assert.match(running.client.dead ?? "", /SIGKILL/);
  const again = await callTool(w, "lsp", { operation: "hover", path: "src/main.ts", line: 3, symbol: "add" });
  assert.equal(again.success, true, again.error);
  assert.equal(again.server_restarted, true);
  assert.equal(again.output, first.output);
  const restartedPid = lspManager(w).running()[0].client.pid;
  assert.notEqual(restartedPid, pid);
  // Idle for longer than the timeout: shut down (the process is gone), and started again on use without counting as a crash.
  for (let i = 0; i < 100 && lspManager(w).running().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(lspManager(w).running().length, 0);
  for (let i = 0; i < 50 && alive(restartedPid); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(restartedPid), false);
  const later = await callTool(w, "lsp", { operation: "hover", path: "src/main.ts", line: 3, symbol: "add" });
  assert.equal(later.server_started, true);
  assert.equal(later.server_restarted, undefined);
});

test("configured servers: the user's apply (a server that never answers times out), a project's wait for trust", async () => {
  const root = tempTree({
    "a.slow": "x\n",
    ".rt/config.json": JSON.stringify({
      lsp: {
        servers: {
          planted: { command: "/bin/sh", args: ["-c", "touch /tmp/rt-lsp-planted-ran"], extensions: [".slow"] },
        },
      },
    }),
  });
  const w = ws(root);
  const untrusted = await callTool(w, "lsp", { operation: "diagnostics", path: "a.slow" });
  assert.match(
    untrusted.error!,
    /no language server for a\.slow: rt has servers for .*\.ts.*configure one in lsp\.servers/,
  );
  assert.equal(fs.existsSync("/tmp/rt-lsp-planted-ran"), false);
  const config = path.join(root, "user-config");
  fs.mkdirSync(path.join(config, "rt"), { recursive: true });
  fs.writeFileSync(
    path.join(config, "rt", "config.json"),
    JSON.stringify({
      lsp: {
        request_timeout_ms: 800,
        servers: { silent: { command: "/bin/sleep", args: ["30"], extensions: [".slow"] } },
      },
    }),
  );
  const w2 = ws(root, { env: { XDG_CONFIG_HOME: config } });
  const started = performance.now();
  const r = await callTool(w2, "lsp", { operation: "diagnostics", path: "a.slow" });
  assert.match(
    r.error!,
    /the silent language server did not start: silent language server did not answer initialize within 0\.8s/,
  );
  assert.ok(performance.now() - started < 5000);
});

test("safe-read-only: the server runs inside the read-only sandbox and still answers; nothing is written", async () => {
  const root = tsProject();
  const before = treeHash(root);
  const w = ws(root, { profile: "safe-read-only", state: false });
  const d = await callTool(w, "lsp", { operation: "definition", path: "src/main.ts", line: 3, symbol: "add" });
  if (!d.success && /sandbox/.test(d.error ?? "")) {
    // No sandbox on this machine: the tool must say so rather than run the server outside it.
    assert.match(d.error!, /read-only sandbox.*not available/);
    return;
  }
  assert.equal(d.success, true, d.error);
  assert.equal(d.output, "src/math.ts:1:17: export function add(a: number, b: number): number {");
  const [running] = lspManager(w).running();
  const cmdline = fs.readFileSync(`/proc/${running.client.pid}/cmdline`, "utf8").split("\0");
  assert.match(path.basename(cmdline[0]), /bwrap/);
  assert.ok(cmdline.includes("--ro-bind"));
  assert.equal(treeHash(root), before);
});

test("rt lsp on the command line: diagnostics with seed 002's lines, exit 1 when there are errors; the server does not outlive rt", async () => {
  const root = tsProject();
  fs.writeFileSync(path.join(root, "src/bad.ts"), "export const n: number = 'one';\n");
  const r = await rt(["lsp", "diagnostics", "src/bad.ts"], {
    cwd: root,
    env: { XDG_CONFIG_HOME: path.join(root, ".none") },
  });
  assert.equal(
    r.stdout,
    "src/bad.ts:1:14: error: Type 'string' is not assignable to type 'number'. [typescript 2322]\n1 error, 0 others in src/bad.ts\n",
  );
  assert.equal(r.code, 1);
  const def = await rt(["lsp", "definition", "src/main.ts", "3", "add"], { cwd: root });
  assert.equal(def.code, 0, def.stderr);
  assert.equal(def.stdout, "src/math.ts:1:17: export function add(a: number, b: number): number {\n");
  // No server process is left running with this root as its directory.
  await new Promise((res) => setTimeout(res, 300));
  const left = fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readlinkSync(`/proc/${p}/cwd`) === fs.realpathSync(root);
      } catch {
        return false;
      }
    });
  assert.deepEqual(left, []);
});

test("no program of the repository runs: its node_modules/typescript is not the one used, nor a python on PATH inside it", async () => {
  const marker = path.join(tempTree({}, "rt-lsp-marker-"), "ran");
  const planted = `require("fs").writeFileSync(${JSON.stringify(marker)}, "planted ran"); process.exit(1);\n`;
  const root = tsProject();
  fs.mkdirSync(path.join(root, "node_modules/typescript/lib"), { recursive: true });
  fs.writeFileSync(
    path.join(root, "node_modules/typescript/package.json"),
    JSON.stringify({ name: "typescript", version: "5.9.3", main: "lib/typescript.js" }),
  );
  fs.writeFileSync(path.join(root, "node_modules/typescript/lib/tsserver.js"), planted);
  fs.writeFileSync(path.join(root, "node_modules/typescript/lib/typescript.js"), planted);
  fs.mkdirSync(path.join(root, "pkg"));
  fs.writeFileSync(path.join(root, "pkg/a.py"), "x: int = 1\n");
  fs.mkdirSync(path.join(root, "bin"));
  fs.writeFileSync(path.join(root, "bin/python"), `#!/bin/sh\necho planted > ${JSON.stringify(marker)}\n`, {
    mode: 0o755,
  });
  fs.copyFileSync(path.join(root, "bin/python"), path.join(root, "bin/python3"));
  const w = ws(root, { env: { PATH: `${path.join(root, "bin")}:${process.env.PATH}` } });
  const ts = await callTool(w, "lsp", { operation: "definition", path: "src/main.ts", line: 3, symbol: "add" });
  assert.equal(ts.output, "src/math.ts:1:17: export function add(a: number, b: number): number {");
  const py = await callTool(w, "lsp", { operation: "diagnostics", path: "pkg/a.py" });
  assert.equal(py.success, true, py.error);
  assert.equal(fs.existsSync(marker), false, "a program of the repository ran");
});
