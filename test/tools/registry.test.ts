// The registry: its entries (name, aliases, read-only flag) match the tool
// modules they load, and the `rt` executable evaluates a tool's module only when
// that tool is used (V8's own coverage of the bundle is the witness).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { TOOLS, findTool, toolEntries } from "../../src/tools/registry.ts";
import { CLI, tempTree } from "../helpers.ts";

test("every registry entry matches the tool its module defines", () => {
  const entries = toolEntries();
  assert.equal(entries.length, TOOLS.length);
  for (const e of entries) {
    const tool = e.load();
    assert.equal(tool.name, e.name);
    assert.deepEqual(tool.aliases, [...e.aliases], `${e.name} aliases`);
    assert.equal(tool.readOnly, e.readOnly, `${e.name} readOnly`);
    const listed = findTool(e.name)!;
    // The registry's tool reads the rest from the module.
    assert.equal(listed.description, tool.description);
    assert.equal(listed.schema, tool.schema);
    for (const flag of ["destructive", "idempotent", "editing", "enforcesReadOnly"] as const) assert.equal(listed[flag], tool[flag], `${e.name}.${flag}`);
    for (const alias of e.aliases) assert.equal(findTool(alias), listed, alias);
  }
});

type ScriptCoverage = { url: string; functions: Array<{ functionName: string; ranges: Array<{ count: number }> }> };

/** V8's coverage of every script `rt ARGS` compiled (NODE_V8_COVERAGE), with the exit codes allowed. */
function coverageOf(args: string[], cwd: string, opts: { input?: string; codes?: number[] } = {}): ScriptCoverage[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rt-cov-"));
  try {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd, input: opts.input ?? "", env: { ...process.env, NODE_V8_COVERAGE: dir, RT_ROOT: cwd }, encoding: "utf8" });
    assert.ok((opts.codes ?? [0]).includes(r.status ?? -1), r.stderr);
    return fs.readdirSync(dir).flatMap((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as { result: ScriptCoverage[] }).result);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Which src/ modules of the CLI bundle ran their top-level code during `rt ARGS`. */
function modulesEvaluated(args: string[], cwd: string): Set<string> {
  const ran = new Set<string>();
  for (const script of coverageOf(args, cwd, { codes: [0, 1] })) {
    if (!/rt-cli(-rest)?\.cjs$/.test(script.url)) continue;
    // esbuild names each lazily initialized module's function after its path.
    for (const fn of script.functions) if (/^src\//.test(fn.functionName) && fn.ranges[0].count > 0) ran.add(fn.functionName);
  }
  return ran;
}

test("rt open evaluates the open tool's module, not the other tools' (nor the edit engine, the shell check, SQL)", () => {
  const root = tempTree({ "a.py": "x = 1\n" });
  const ran = modulesEvaluated(["open", "a.py:1"], root);
  assert.ok(ran.has("src/tools/open.ts"), [...ran].join(", "));
  for (const m of ["src/tools/editLines.ts", "src/tools/edit.ts", "src/tools/bash.ts", "src/tools/sqlQuery.ts", "src/tools/grep.ts", "src/tools/writeOutput.ts", "src/shell/commandRules.ts", "src/edit/match.ts"]) {
    assert.ok(!ran.has(m), `${m} was evaluated by rt open`);
  }
  const grep = modulesEvaluated(["grep", "x"], root);
  assert.ok(grep.has("src/tools/grep.ts"));
  assert.ok(!grep.has("src/tools/editLines.ts") && !grep.has("src/tools/open.ts"), [...grep].join(", "));
});

/** Whether `rt ARGS` compiled the CLI's second file (dist/rt-cli-rest.cjs: the agent, the UI, the edit engine...). */
function loadedRest(args: string[], cwd: string, input = ""): boolean {
  return coverageOf(args, cwd, { input }).some((script) => script.url.endsWith("rt-cli-rest.cjs"));
}

test("zod loads only when a schema is needed: plain arguments of reading and searching tools pass without it", () => {
  const root = tempTree({ "a.py": "x = 1\ny = 2\n" });
  const loadedZod = (args: string[], input = "", codes = [0]) => coverageOf(args, root, { input, codes }).some((script) => script.url.endsWith("rt-zod.cjs"));
  for (const args of [["open", "a.py:1"], ["read", "a.py"], ["grep", "-i", "-C", "1", "x"], ["grep-file", "x", "a.py"], ["find", "*.py"], ["ls"], ["scroll", "a.py", "+"]]) {
    assert.equal(loadedZod(args, "", [0, 1]), false, `rt ${args.join(" ")} loaded zod`);
  }
  // The check can fail: an argument alias, and a wrong value, go through the schema.
  assert.equal(loadedZod(["call", "open", "--args", '{"file_path": "a.py"}']), true);
  assert.equal(loadedZod(["call", "open", "--args", '{"path": "a.py", "line": 0}'], "", [2]), true);
});

test("reading and searching run from the CLI's first file alone; editing, the agent and `rt tools` load the second", () => {
  const root = tempTree({ "a.py": "x = 1\ny = 2\n", "sub/b.py": "x = 3\n" });
  for (const args of [["open", "a.py:1"], ["read", "a.py"], ["grep", "x"], ["find", "*.py"], ["ls"], ["call", "--batch"]]) {
    assert.equal(loadedRest(args, root, args[1] === "--batch" ? '{"tool":"grep","args":{"pattern":"x"}}\n{"tool":"open","args":{"path":"a.py"}}\n' : ""), false, `rt ${args.join(" ")} loaded the second file`);
  }
  // The check can fail: these need it. State is shared across the two files (one registry), so an edit is undoable.
  assert.equal(loadedRest(["edit", "a.py", "2", "2"], root, "y = 3\n"), true);
  assert.equal(fs.readFileSync(path.join(root, "a.py"), "utf8"), "x = 1\ny = 3\n");
  assert.equal(loadedRest(["undo", "a.py"], root), true);
  assert.equal(fs.readFileSync(path.join(root, "a.py"), "utf8"), "x = 1\ny = 2\n");
  assert.equal(loadedRest(["tools"], root), true);
});

test("each of the CLI's files has a V8 code cache that this Node accepts (made by the build for that very file; the first file has a second one for rt grep)", async () => {
  const vm = await import("node:vm");
  const dist = path.dirname(CLI);
  // rt-cli.grep.cache: the first file's cache for `rt grep` (see the loader in scripts/build.mjs).
  for (const [file, cache] of [["rt-cli", "rt-cli"], ["rt-cli", "rt-cli.grep"], ["rt-cli-rest", "rt-cli-rest"], ["rt-zod", "rt-zod"]]) {
    const source = fs.readFileSync(path.join(dist, `${file}.cjs`), "latin1");
    const cachedData = fs.readFileSync(path.join(dist, `${cache}.cache`));
    const script = new vm.Script(source, { filename: path.join(dist, `${file}.cjs`), cachedData });
    assert.equal(script.cachedDataRejected, false, `dist/${cache}.cache was rejected`);
  }
  // The check can fail: a cache is refused for a source of another length.
  const other = new vm.Script(`${fs.readFileSync(path.join(dist, "rt-zod.cjs"), "latin1")} `, { cachedData: fs.readFileSync(path.join(dist, "rt-zod.cache")) });
  assert.equal(other.cachedDataRejected, true);
});
