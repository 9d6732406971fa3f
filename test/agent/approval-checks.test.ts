// The user is asked only about calls that can run: the policy checks a call
// (policy.prepareCall: the tool, its arguments against the tool's schema with
// argument aliases, the profile) before the approvals ask, and the user sees
// the checked arguments. The model is played by the scripted server; the
// oracle for "valid" is each tool's own schema, not the loop's code.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { makeAgent, collect, ofType, last } from "./harness.ts";
import { categoryOf, type ApprovalRequest } from "../../src/agent/approval.ts";
import { TOOLS, findTool, jsonSchemaOf } from "../../src/tools/registry.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { agentWorkspace } from "../../src/agent/rtOnPath.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
});
beforeEach(() => server.reset());

function recorder(answer: "yes" | "no" = "no") {
  const asked: ApprovalRequest[] = [];
  return { asked, approve: async (r: ApprovalRequest) => (asked.push(r), answer) };
}

test("a call whose arguments the schema rejects is answered with the error; the user is never asked", async () => {
  const root = tempTree({ "a.txt": "keep\n" });
  server.script(
    reply.toolCall("edit", { path: "a.txt", old_string: 5, new_string: "lost" }),
    reply.toolCall("bash", { command: "touch made", timeout: "soon" }),
    reply.toolCall("write", { path: "b.txt" }),
    reply.text("gave up"),
  );
  const { asked, approve } = recorder("yes");
  const agent = makeAgent(root, server, { approval: "ask", approve });
  const events = await collect(agent.run("change a.txt"));
  assert.equal(last(events).type, "turn_complete");
  assert.deepEqual(asked, [], "the approval callback was called for invalid arguments");
  assert.equal(ofType(events, "tool_blocked").length, 0);
  const ends = ofType(events, "tool_end");
  assert.deepEqual(
    ends.map((e) => [e.name, e.success]),
    [
      ["edit", false],
      ["bash", false],
      ["write", false],
    ],
  );
  for (const e of ends)
    assert.match(e.output, new RegExp(`^error: invalid arguments for ${e.name}: .*\\nschema: \\{`, "s"));
  // The model is told what was wrong and what is valid.
  const toolMsgs = server.completions[3].body.messages
    .filter((m: { role: string }) => m.role === "tool")
    .map((m: { content: string }) => m.content);
  assert.match(toolMsgs[0], /old_string: .*expected string/i);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "keep\n");
  assert.equal(fs.existsSync(path.join(root, "made")), false);
  assert.equal(fs.existsSync(path.join(root, "b.txt")), false);
  agent.close();
});

test("the user approves the checked arguments: aliases resolved to canonical names; a conflicting alias is refused unasked", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  server.script(
    // run_in_background is bash's alias of background; given alone it is the canonical argument the user sees.
    reply.toolCall("bash", { command: "echo hi > out.txt", run_in_background: false }),
    // Both names with different values: invalid, so not asked.
    reply.toolCall("bash", { command: "echo no > no.txt", background: false, run_in_background: true }),
    reply.text("done"),
  );
  const { asked, approve } = recorder("yes");
  const agent = makeAgent(root, server, { approval: "ask", approve });
  const events = await collect(agent.run("go"));
  assert.equal(last(events).type, "turn_complete");
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0].args, { command: "echo hi > out.txt", background: false });
  assert.equal(asked[0].summary, "bash: echo hi > out.txt");
  // The events show the call as the model made it.
  assert.deepEqual(ofType(events, "tool_start")[0].args, { command: "echo hi > out.txt", run_in_background: false });
  assert.equal(fs.readFileSync(path.join(root, "out.txt"), "utf8"), "hi\n");
  assert.match(ofType(events, "tool_end")[1].output, /run_in_background is another name for background/);
  assert.equal(fs.existsSync(path.join(root, "no.txt")), false);
  agent.close();
});

test("a call the profile refuses (safe-read-only) is answered with the refusal; the user is not asked", async () => {
  const root = tempTree({ "a.txt": "keep\n" });
  server.script(reply.toolCall("edit", { path: "a.txt", old_string: "keep", new_string: "lost" }), reply.text("ok"));
  const { asked, approve } = recorder("yes");
  const ws = agentWorkspace(
    createWorkspace({ root, profile: "safe-read-only", env: { ...process.env, RT_ROOT: undefined } }),
  );
  const agent = makeAgent(root, server, { approval: "ask", approve, workspace: ws });
  const events = await collect(agent.run("go"));
  assert.equal(last(events).type, "turn_complete");
  assert.deepEqual(asked, []);
  const end = ofType(events, "tool_end")[0];
  assert.equal(end.success, false);
  assert.match(end.output, /profile is safe-read-only/);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "keep\n");
  agent.close();
});

// ---- the invariant over many generated calls ------------------------------------------

type Json = Record<string, unknown>;

/** A value of the JSON schema's type (valid or not: the tool's schema decides). */
function sample(prop: Json): unknown {
  if (Array.isArray(prop.enum)) return prop.enum[0];
  const type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
  if (Array.isArray(prop.anyOf)) return sample(prop.anyOf[0] as Json);
  switch (type) {
    case "string":
      return "a.txt";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "array":
      return prop.items ? [sample(prop.items as Json)] : [];
    case "object": {
      const props = (prop.properties ?? {}) as Record<string, Json>;
      return Object.fromEntries(((prop.required ?? []) as string[]).map((k) => [k, sample(props[k] ?? {})]));
    }
    default:
      return "a.txt";
  }
}

function wrongType(v: unknown): unknown {
  if (typeof v === "string") return 12345;
  if (typeof v === "number") return "twelve";
  if (typeof v === "boolean") return "yes";
  if (Array.isArray(v)) return { not: "a list" };
  return ["not", "an", "object"];
}

/** Calls to every tool that needs approval: generated from its JSON schema, then broken one way at a time. */
function generatedCalls(): Array<{ name: string; args: Json }> {
  const out: Array<{ name: string; args: Json }> = [];
  const seen = new Set<string>();
  const add = (name: string, args: Json) => {
    const key = `${name} ${JSON.stringify(args)}`;
    if (!seen.has(key)) seen.add(key), out.push({ name, args });
  };
  for (const tool of TOOLS.filter((t) => categoryOf(t) !== "read")) {
    const schema = jsonSchemaOf(tool);
    const props = (schema.properties ?? {}) as Record<string, Json>;
    const required = (schema.required ?? []) as string[];
    const base = Object.fromEntries(
      Object.keys(props)
        .filter((k) => required.includes(k))
        .map((k) => [k, sample(props[k])]),
    );
    add(tool.name, base);
    add(tool.name, {});
    add(tool.name, { ...base, zz_not_an_argument: 1 });
    for (const k of required) {
      const { [k]: _dropped, ...rest } = base;
      add(tool.name, rest);
    }
    for (const k of Object.keys(props)) add(tool.name, { ...base, [k]: wrongType(base[k] ?? sample(props[k])) });
  }
  // Some that are certainly valid, so the invariant is checked in both directions.
  add("edit", { path: "a.txt", old_string: "x", new_string: "y" });
  add("write", { path: "new.txt", content: "hello\n" });
  add("bash", { command: "echo generated", run_in_background: false });
  return out;
}

test("over generated calls to every tool that needs approval: asked exactly for those the tool's schema accepts, with the parsed arguments", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const calls = generatedCalls();
  const oracle = calls.map((c) => findTool(c.name)!.schema.safeParse(c.args));
  const valid = oracle.filter((r) => r.success).length;
  assert.ok(
    valid >= 3 && calls.length - valid >= 30,
    `generated ${calls.length} calls, ${valid} valid: not a test of both sides`,
  );
  server.script({ toolCalls: calls.map((c) => ({ name: c.name, arguments: c.args })) }, reply.text("done"));
  // "no" to everything: nothing the generator made runs.
  const { asked, approve } = recorder("no");
  const agent = makeAgent(root, server, { approval: "ask", approve });
  const events = await collect(agent.run("go"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  const expected = calls.flatMap((c, i) => (oracle[i].success ? [{ tool: c.name, args: oracle[i].data }] : []));
  assert.deepEqual(
    asked.map((r) => ({ tool: r.tool, args: r.args })),
    expected,
  );
  // Every call the schema rejects got the schema's error, and none was reported as blocked by the user.
  const ends = new Map(ofType(events, "tool_end").map((e) => [e.id, e]));
  const ids = server.completions[1].body.messages
    .filter((m: { role: string }) => m.role === "tool")
    .map((m: { tool_call_id: string }) => m.tool_call_id);
  assert.equal(ids.length, calls.length);
  calls.forEach((c, i) => {
    if (oracle[i].success) return;
    const end = ends.get(ids[i]);
    assert.ok(
      end && !end.success && /^error: invalid arguments for /.test(end.output),
      `${c.name} ${JSON.stringify(c.args)}: ${end?.output}`,
    );
  });
  assert.equal(ofType(events, "tool_blocked").length, valid);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "x\n");
  agent.close();
});
