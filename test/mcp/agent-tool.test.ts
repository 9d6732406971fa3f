// `rt mcp --agent`: rt's agent as one MCP tool, rt_agent, driven by the SDK's
// client over stdio; the model is the scripted server (Ollama's protocol).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { CallToolResultSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { tempTree } from "../helpers.ts";
import { reply } from "../llm-server.ts";
import { scriptedOllama } from "../agent/harness.ts";
import { connectStdio } from "./helpers.ts";
import { agentToolArgs } from "../../src/faces/mcp/agentTool.ts";

const ollama = scriptedOllama();
const CALC = "def add(a, b):\n    return a - b\n";

test("rt_agent: listed only with --agent; runs the agent (edits applied under auto-edit, commands refused), progress, session_id continues the conversation", async () => {
  const root = tempTree({ "calc.py": CALC });
  const env = ollama.env() as Record<string, string>;
  const plain = await connectStdio(root, [], { env });
  assert.ok(!(await plain.client.listTools()).tools.some((t) => t.name === "rt_agent"));
  await plain.close();

  const s = await connectStdio(root, [], { env }, ["--agent", "--model", "ollama/test-model"]);
  try {
    const listed = (await s.client.listTools()).tools.find((t) => t.name === "rt_agent");
    assert.ok(listed, "rt_agent is listed with --agent");
    assert.deepEqual(listed.inputSchema.required, ["prompt"]);

    ollama.server.script(
      reply.toolCall("edit", { path: "calc.py", old_string: "return a - b", new_string: "return a + b" }),
      reply.toolCall("bash", { command: "touch should-not-exist" }),
      reply.text("Fixed add."),
    );
    const seen: Progress[] = [];
    const r = await s.client.callTool(
      { name: "rt_agent", arguments: { prompt: "fix add in calc.py" } },
      CallToolResultSchema,
      { onprogress: (p) => void seen.push(p) },
    );
    assert.equal(r.isError ?? false, false, JSON.stringify(r));
    const out = r.structuredContent as { result: string; session_id: string; is_error: boolean };
    assert.equal(out.result, "Fixed add.");
    assert.equal(out.is_error, false);
    assert.equal(fs.readFileSync(path.join(root, "calc.py"), "utf8"), CALC.replace("a - b", "a + b"));
    assert.equal(
      fs.existsSync(path.join(root, "should-not-exist")),
      false,
      "a command needs approval, and nobody can give it here",
    );
    assert.ok(
      seen.some((p) => /edit calc\.py/.test(p.message ?? "")),
      JSON.stringify(seen),
    );

    ollama.server.script(reply.text("We fixed add earlier."));
    const again = await s.client.callTool({
      name: "rt_agent",
      arguments: { prompt: "what did we do?", session_id: out.session_id },
    });
    assert.equal((again.structuredContent as { session_id: string }).session_id, out.session_id);
    const last = ollama.server.completions.at(-1)!.body.messages;
    assert.ok(
      last.some((m: { role: string; content: string }) => m.role === "user" && m.content === "fix add in calc.py"),
      "the earlier turn is in the context",
    );

    const bad = await s.client.callTool({ name: "rt_agent", arguments: { prompt: "x", approval: "yolo" } });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bad.content), /approval: must be one of ask, auto-edit, auto, never, plan/);
  } finally {
    await s.close();
  }
});

test("rt_agent's argument check names what is wrong", () => {
  assert.deepEqual(agentToolArgs({ prompt: "hi" }), { prompt: "hi" });
  assert.equal(
    (agentToolArgs({ prompt: "" }) as { error: string }).error,
    "prompt: must be a non-empty string: the task for rt's agent",
  );
  assert.match((agentToolArgs({ prompt: " \n" }) as { error: string }).error, /^prompt: must be a non-empty/);
  assert.match(
    (agentToolArgs({ prompt: "a", approval: "yes" }) as { error: string }).error,
    /^approval: must be one of/,
  );
  assert.match((agentToolArgs({ prompt: "a", extra: 1 }) as { error: string }).error, /unknown argument extra/);
  assert.match(
    (agentToolArgs({ prompt: "a", session_id: 3 }) as { error: string }).error,
    /session_id: must be a string/,
  );
});
