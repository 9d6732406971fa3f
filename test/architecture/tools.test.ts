// One file per tool: every module directly in src/tools/ (but the registry,
// the policy, the types and the module list) defines exactly one tool, and
// every registered tool comes from a module of its own; what several tools
// share lives in src/tools/shared/ and defines none.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TOOLS, findTool } from "../../src/tools/registry.ts";
import { TOOL_MODULES } from "../../src/tools/toolModules.ts";

const TOOLS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "tools");
const INFRASTRUCTURE = new Set(["registry.ts", "policy.ts", "types.ts", "toolModules.ts", "jsonSchema.ts"]);

test("src/tools/: one file per tool, helpers in shared/, each listed once in toolModules.ts", async () => {
  const files = fs.readdirSync(TOOLS_DIR).filter((f) => f.endsWith(".ts") && !INFRASTRUCTURE.has(f));
  for (const f of files) {
    const n = fs.readFileSync(path.join(TOOLS_DIR, f), "utf8").match(/\bdefineTool\(/g)?.length ?? 0;
    assert.equal(n, 1, `${f} defines ${n} tools`);
  }
  for (const f of fs.readdirSync(path.join(TOOLS_DIR, "shared"))) {
    assert.doesNotMatch(
      fs.readFileSync(path.join(TOOLS_DIR, "shared", f), "utf8"),
      /\bdefineTool\(/,
      `shared/${f} defines a tool`,
    );
  }
  // toolModules.ts lists every tool file once, under the name of the tool it defines, and the registry
  // holds exactly those tools, in that order: everything about a tool comes from its module.
  const listed = Object.values(TOOL_MODULES).map((load) => /import\("\.\/(\w+)\.js"\)/.exec(String(load))?.[1] + ".ts");
  assert.deepEqual([...listed].sort(), [...files].sort(), "src/tools/toolModules.ts lists every tool file once");
  assert.deepEqual(
    TOOLS.map((t) => t.name),
    Object.keys(TOOL_MODULES),
  );
  for (const [name, load] of Object.entries(TOOL_MODULES)) {
    const mod = (await load()) as Record<string, unknown>;
    const tools = Object.values(mod).filter(
      (v) => typeof v === "object" && v !== null && "handler" in v && "name" in v,
    );
    assert.equal(tools.length, 1, `module of ${name} exports ${tools.length} tools`);
    assert.equal(tools[0], findTool(name), `the registry's ${name} is its module's tool`);
    for (const alias of (tools[0] as { aliases: string[] }).aliases) assert.equal(findTool(alias), tools[0], alias);
  }
});
