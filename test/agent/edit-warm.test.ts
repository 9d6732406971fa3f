// The agent's edit round trip: what an edit needs of a file is prepared once the model read it
// (the file's parse for the syntax check is in the cache before the edit is asked for, so the edit
// parses only what it changed), and the session's tool list is worked out once, not for every
// request. In process, against the scripted model server on loopback and real files.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { agentWorkspace } from "../../src/agent/rtOnPath.ts";
import { Agent } from "../../src/agent/loop.ts";
import { createAnthropicProvider } from "../../src/agent/providers/anthropic.ts";
import { hasParse, parseCounts, validateEdit, warmParse } from "../../src/edit/validate.ts";
import { warmEdit } from "../../src/tools/policy.ts";
import { sessionToolSet, toolSpecs } from "../../src/agent/toolSet.ts";

/** A TypeScript source of `n` functions (distinct per `tag`, so no other test's parse is reused). */
function source(tag: string, n = 300): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`export function ${tag}${i}(x: number): number {`, `  return x * ${i};`, "}");
  return `${out.join("\n")}\n`;
}

function env(home: string): NodeJS.ProcessEnv {
  return { ...process.env, RT_ROOT: undefined, HOME: home, XDG_CONFIG_HOME: home };
}

async function until(check: () => boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

test("a file the agent's model read is parsed while the model thinks: the tree is cached before any edit", async () => {
  const text = source("readAhead");
  const root = tempTree({ "src/a.ts": text });
  const home = tempTree({}, "rt-home-");
  // Edit diagnostics off: this test is about the parse (no language server is started).
  fs.mkdirSync(path.join(home, "rt"), { recursive: true });
  fs.writeFileSync(path.join(home, "rt", "config.json"), '{"lsp":{"edit_diagnostics":false}}\n');
  const server = await startLlmServer();
  server.script(reply.toolCall("read", { path: "src/a.ts" }), reply.text("read it"));
  const agent = new Agent({
    workspace: agentWorkspace(createWorkspace({ root, env: env(home) })),
    provider: createAnthropicProvider({ baseURL: server.anthropicBaseUrl, apiKey: "k", retry: { maxRetries: 0 } }),
    model: "claude-test",
    modelLabel: "anthropic/claude-test",
    protocol: "tools",
    approval: "auto",
    contextWindow: 200_000,
  });
  try {
    assert.equal(hasParse(text, "typescript"), false);
    for await (const _ev of agent.run("read src/a.ts")) void _ev;
    // Only the read happened: nothing else parses this text.
    assert.ok(await until(() => hasParse(text, "typescript")), "the read file's tree was not cached");
  } finally {
    agent.close();
    await server.close();
  }
});

test("after warmEdit, the edit's syntax check parses only the edited text, incrementally from the cached tree", async () => {
  const text = source("warmed");
  const root = tempTree({ "b.ts": text });
  const home = tempTree({}, "rt-home-");
  const ws = createWorkspace({ root, env: env(home) });
  await warmEdit(ws, "b.ts");
  assert.ok(hasParse(text, "typescript"));
  const before = { ...parseCounts };
  const v = await validateEdit("b.ts", text, text.replace("return x * 7;", "return x * 8;"));
  assert.equal(v.checked, true);
  assert.deepEqual(v.introduced, []);
  assert.equal(parseCounts.scratch, before.scratch, "the old text was parsed again from scratch");
  assert.equal(parseCounts.incremental, before.incremental + 1);
});

test("a validation that needs a text being warmed waits for that parse instead of parsing it again", async () => {
  const text = source("concurrent");
  const before = { ...parseCounts };
  const [, v] = await Promise.all([
    warmParse("c.ts", text),
    validateEdit("c.ts", text, text.replace("return x * 3;", "return x * 4;")),
  ]);
  assert.equal(v.checked, true);
  assert.equal(parseCounts.scratch, before.scratch + 1, "the same text was parsed from scratch twice");
});

test("the session's tool list is worked out once: a configuration change mid-session leaves it as it was", () => {
  const root = tempTree({ "a.txt": "x\n" });
  const home = tempTree({}, "rt-home-");
  const ws = createWorkspace({ root, env: env(home) });
  // Everything offered directly (no deferral), so web_search would be in the list once it is configured.
  const set = sessionToolSet({ workspace: ws, approval: "auto", deferTools: false });
  const first = toolSpecs(set);
  assert.ok(!first.some((t) => t.name === "web_search"));
  fs.mkdirSync(path.join(home, "rt"), { recursive: true });
  fs.writeFileSync(
    path.join(home, "rt", "config.json"),
    JSON.stringify({ web: { search: { backend: "brave", base_url: "http://127.0.0.1:9/search" } } }),
  );
  const again = toolSpecs(set);
  assert.deepEqual(
    again.map((t) => t.name),
    first.map((t) => t.name),
  );
  // The same spec objects: nothing was rebuilt.
  for (const [i, s] of again.entries()) assert.equal(s, first[i], `${s.name}'s spec was made again`);
  // A new session sees the new configuration.
  const fresh = toolSpecs(sessionToolSet({ workspace: ws, approval: "auto", deferTools: false }));
  assert.ok(fresh.some((t) => t.name === "web_search"));
});
