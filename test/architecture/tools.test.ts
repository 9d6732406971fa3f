// One file per tool: every module directly in src/tools/ (but the registry,
// the policy, the types and the module list) defines exactly one tool, and
// every registered tool comes from a module of its own; what several tools
// share lives in src/tools/shared/ and defines none.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { toolEntries } from "../../src/tools/registry.ts";
import { toolModules } from "../../src/tools/toolModules.ts";

const TOOLS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "tools");
const INFRASTRUCTURE = new Set(["registry.ts", "policy.ts", "types.ts", "toolModules.ts"]);

test("src/tools/: one file per tool, helpers in shared/", () => {
  const files = fs.readdirSync(TOOLS_DIR).filter((f) => f.endsWith(".ts") && !INFRASTRUCTURE.has(f));
  for (const f of files) {
    const n = fs.readFileSync(path.join(TOOLS_DIR, f), "utf8").match(/\bdefineTool\(/g)?.length ?? 0;
    assert.equal(n, 1, `${f} defines ${n} tools`);
  }
  for (const f of fs.readdirSync(path.join(TOOLS_DIR, "shared"))) {
    assert.doesNotMatch(fs.readFileSync(path.join(TOOLS_DIR, "shared", f), "utf8"), /\bdefineTool\(/, `shared/${f} defines a tool`);
  }
  assert.equal(files.length, toolEntries().length, `tool files: ${files.join(", ")}`);
  // Each module exports exactly one tool, and no two entries load the same module.
  const modules = new Set<unknown>();
  for (const [name, load] of Object.entries(toolModules)) {
    const mod = load() as Record<string, unknown>;
    const tools = Object.values(mod).filter((v) => typeof v === "object" && v !== null && "handler" in v && "name" in v);
    assert.equal(tools.length, 1, `module ${name} exports ${tools.length} tools`);
    modules.add(tools[0]);
  }
  assert.equal(modules.size, toolEntries().length);
});
