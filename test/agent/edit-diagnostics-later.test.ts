// The agent's edits do not wait for the language server: an edit answers once the file is written,
// and the comparison of the file's errors before and after it runs in the background. What it finds
// reaches the model once, with a later tool result or, when the model answered first, in one more
// message before the turn ends. The real loop functions (as a subagent runs them), the real
// typescript-language-server from npm on a project in a temp dir, the scripted model server.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { collect, last, ofType, openaiProvider, requestText } from "./harness.ts";
import { createWorkspace, type Workspace } from "../../src/workspace/workspace.ts";
import { agentWorkspace } from "../../src/agent/rtOnPath.ts";
import { Approvals, type ApprovalRequest } from "../../src/agent/approval.ts";
import { SessionLog } from "../../src/agent/session.ts";
import { History } from "../../src/agent/history.ts";
import { createLoopContext, type LoopContext } from "../../src/agent/loopContext.ts";
import { restrictedToolSet } from "../../src/agent/toolSet.ts";
import { runUserTurn } from "../../src/agent/turn.ts";
import { findTool } from "../../src/tools/registry.ts";
import { lspManager } from "../../src/lsp/manager.ts";
import { EditChecks } from "../../src/agent/editChecks.ts";

let server: LlmServer;
const workspaces: Workspace[] = [];
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
  for (const w of workspaces) await lspManager(w).stopAll();
});
beforeEach(() => server.reset());

function tsProject(): string {
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

/** A loop on `root` with read, edit and bash; `approve` answers the approval questions (every call is asked about). */
function loop(root: string, approve: (r: ApprovalRequest, ctx: LoopContext) => Promise<"yes">): LoopContext {
  const ws = agentWorkspace(
    createWorkspace({
      root,
      state: true,
      env: { ...process.env, RT_ROOT: undefined, XDG_CONFIG_HOME: path.join(root, ".no-user-config") },
    }),
  );
  workspaces.push(ws);
  const session = SessionLog.create(ws, "openai-compatible/test-model", "tools");
  const ctx: LoopContext = createLoopContext({
    workspace: ws,
    model: { provider: openaiProvider(server), model: "test-model", label: "openai-compatible/test-model" },
    tools: restrictedToolSet([findTool("read")!, findTool("edit")!, findTool("bash")!]),
    approvals: new Approvals("ask", (r) => approve(r, ctx)),
    protocol: "tools",
    history: new History(session.log),
    systemPrompt: () => "You edit TypeScript.",
    limits: { maxTurns: 10 },
  });
  return ctx;
}

const yes = async () => "yes" as const;

const TYPE_ERROR = {
  old_string: "const total: number = add(1, 2);",
  new_string: "const total: string = add(1, 2);",
};
const TYPE_ERROR_LINE = "src/main.ts:3:7: error: Type 'number' is not assignable to type 'string'. [typescript 2322]";
const MISSING_Y = { old_string: "{ x: 0, y: 0 }", new_string: "{ x: 0 }" };

/** The content of each tool result and user message of a recorded request, in order. */
function messages(i: number): Array<{ role: string; id?: string; content: string }> {
  const body = server.completions[i].body as {
    messages: Array<{ role: string; tool_call_id?: string; content: unknown }>;
  };
  return body.messages.map((m) => ({
    role: m.role,
    ...(m.tool_call_id ? { id: m.tool_call_id } : {}),
    content: typeof m.content === "string" ? m.content : JSON.stringify(m.content),
  }));
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** The report of one edit call in `text`: its first line and the error lines after it. */
function reportOf(text: string, callId: string): string[] | undefined {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith(`typescript language server: edit call ${callId} (src/main.ts)`));
  if (at === -1) return undefined;
  const out = [lines[at]];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith("src/")) break;
    out.push(l);
  }
  return out;
}

test("an edit answers before its check; its error comes with the next result made after the check, once", async () => {
  const root = tsProject();
  server.script(
    { toolCalls: [{ id: "e1", name: "edit", arguments: { path: "src/main.ts", ...TYPE_ERROR } }] },
    { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo next" } }] },
    reply.text("done"),
  );
  // The bash call is let through only once every check queued has finished: its result is made after.
  const ctx = loop(root, async (r, c) => {
    if (r.tool === "bash") await c.editChecks.settled();
    return "yes";
  });
  // When the edit's result is out, its check has not started: it starts with the next request.
  let unstartedAtEnd: boolean | undefined;
  const events: Awaited<ReturnType<typeof collect>> = [];
  for await (const ev of runUserTurn(ctx, "make total a string")) {
    events.push(ev);
    if (ev.type === "tool_end" && ev.id === "e1") unstartedAtEnd = ctx.editChecks.unstarted;
  }
  assert.equal(unstartedAtEnd, true);
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  // The request carrying the edit's result went out without the server's verdict.
  const afterEdit = messages(1).find((m) => m.id === "e1");
  assert.ok(afterEdit, "the edit's result is in the second request");
  assert.match(afterEdit.content, /Edited src\/main\.ts/);
  assert.doesNotMatch(afterEdit.content, /language server|introduced/);
  // The next result carries it, naming the edit and the file, in the format of an edit's own report.
  const bash = messages(2).find((m) => m.id === "b1");
  assert.ok(bash);
  assert.match(bash.content, /--- stdout ---\nnext\n\ntypescript language server/);
  assert.deepEqual(reportOf(bash.content, "e1"), [
    "typescript language server: edit call e1 (src/main.ts) introduced 1 error:",
    TYPE_ERROR_LINE,
  ]);
  // Once: no other message repeats it, and no request was added for it.
  assert.equal(count(requestText(server.completions[2].body as never), TYPE_ERROR_LINE), 1);
  assert.equal(server.completions.length, 3);
  assert.equal(
    ofType(events, "tool_end")
      .find((e) => e.id === "b1")
      ?.output.includes(TYPE_ERROR_LINE),
    true,
  );
});

test("the model answers before the check finished: the error comes in one more message, the turn goes on", async () => {
  const root = tsProject();
  server.script(
    { toolCalls: [{ id: "e1", name: "edit", arguments: { path: "src/main.ts", ...TYPE_ERROR } }] },
    reply.text("done"),
    reply.text("I will fix it"),
  );
  const ctx = loop(root, yes);
  const events = await collect(runUserTurn(ctx, "make total a string"));
  const done = last(events);
  assert.equal(done.type, "turn_complete", JSON.stringify(done));
  assert.equal(done.type === "turn_complete" && done.text, "I will fix it");
  assert.equal(server.completions.length, 3);
  assert.doesNotMatch(requestText(server.completions[1].body as never), /introduced/);
  const third = messages(2);
  const told = third[third.length - 1];
  assert.equal(told.role, "user");
  assert.match(told.content, /^\[rt\] The language server finished checking your edits after your answer:/);
  assert.deepEqual(reportOf(told.content, "e1"), [
    "typescript language server: edit call e1 (src/main.ts) introduced 1 error:",
    TYPE_ERROR_LINE,
  ]);
  assert.equal(count(requestText(server.completions[2].body as never), TYPE_ERROR_LINE), 1);
  // The user is shown what the model was told; the message is not a prompt of the user's.
  assert.ok(ofType(events, "notice").some((n) => n.message.includes(TYPE_ERROR_LINE)));
  assert.equal(ctx.history.context.find((e) => e.message.content === told.content)?.origin, "edit_check");
});

test("an edit that introduces no error: the turn ends at the model's answer, with no other request", async () => {
  const root = tsProject();
  server.script(
    {
      toolCalls: [
        {
          id: "e1",
          name: "edit",
          arguments: {
            path: "src/main.ts",
            old_string: "console.log(total, origin);",
            new_string: "console.log(origin);",
          },
        },
      ],
    },
    reply.text("done"),
  );
  const ctx = loop(root, yes);
  const events = await collect(runUserTurn(ctx, "log only the origin"));
  assert.equal(last(events).type, "turn_complete");
  assert.equal(server.completions.length, 2);
  // The check ran to its end during the turn (nothing is left to tell), and found nothing.
  assert.equal(ctx.editChecks.waiting, false);
  assert.doesNotMatch(requestText(server.completions[1].body as never), /language server/);
});

test("edits of one file in a row are each judged against the text the previous one left", async () => {
  const root = tsProject();
  server.script(
    { toolCalls: [{ id: "r1", name: "read", arguments: { path: "src/main.ts" } }] },
    // e1 breaks `total`; e2 breaks `origin` (total's error stays, and is not e2's); e3 mends total, breaking nothing.
    { toolCalls: [{ id: "e1", name: "edit", arguments: { path: "src/main.ts", ...TYPE_ERROR } }] },
    { toolCalls: [{ id: "e2", name: "edit", arguments: { path: "src/main.ts", ...MISSING_Y } }] },
    {
      toolCalls: [
        {
          id: "e3",
          name: "edit",
          arguments: { path: "src/main.ts", old_string: TYPE_ERROR.new_string, new_string: TYPE_ERROR.old_string },
        },
      ],
    },
    reply.text("done"),
    reply.text("I will add y"),
  );
  const ctx = loop(root, yes);
  const events = await collect(runUserTurn(ctx, "change main.ts"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  const n = server.completions.length;
  assert.equal(n, 6, "one more request tells of the errors");
  const seen = requestText(server.completions[n - 1].body as never);
  assert.deepEqual(reportOf(seen, "e1"), [
    "typescript language server: edit call e1 (src/main.ts) introduced 1 error:",
    TYPE_ERROR_LINE,
  ]);
  assert.deepEqual(reportOf(seen, "e2"), [
    "typescript language server: edit call e2 (src/main.ts) introduced 1 error:",
    "src/main.ts:4:7: error: Property 'y' is missing in type '{ x: number; }' " +
      "but required in type 'Point'. [typescript 2741]",
  ]);
  assert.equal(reportOf(seen, "e3"), undefined);
  assert.equal(count(seen, TYPE_ERROR_LINE), 1);
});

test("an edit after the file changed outside the agent's edits is judged against the file just before it", async () => {
  const root = tsProject();
  server.script(
    // e1 breaks nothing; a command then breaks `total` (not an edit of the agent's); e2 breaks `origin`.
    {
      toolCalls: [
        {
          id: "e1",
          name: "edit",
          arguments: {
            path: "src/main.ts",
            old_string: "console.log(total, origin);",
            new_string: "console.log(origin, total);",
          },
        },
      ],
    },
    {
      toolCalls: [
        { id: "b1", name: "bash", arguments: { command: "sed -i 's/total: number/total: string/' src/main.ts" } },
      ],
    },
    { toolCalls: [{ id: "e2", name: "edit", arguments: { path: "src/main.ts", ...MISSING_Y } }] },
    reply.text("done"),
    reply.text("I will add y"),
  );
  const ctx = loop(root, yes);
  const events = await collect(runUserTurn(ctx, "change main.ts"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  const seen = requestText(server.completions[server.completions.length - 1].body as never);
  assert.equal(reportOf(seen, "e1"), undefined);
  assert.deepEqual(reportOf(seen, "e2")?.length, 2, seen);
  assert.match(reportOf(seen, "e2")?.[1] ?? "", /\[typescript 2741\]$/);
  assert.equal(count(seen, TYPE_ERROR_LINE), 0, "the command's error is not an edit's");
});

test("a background report, like an edit's own, shows no literal quoted from another file", async () => {
  const root = tsProject();
  const secret = "sk-live-0123456789abcdef";
  fs.writeFileSync(path.join(root, "src/key.ts"), `export const KEY = "${secret}" as const;\n`);
  fs.writeFileSync(
    path.join(root, "src/main.ts"),
    `import { KEY } from "./key";\n\nconst n: "a" | "b" = "a";\nconsole.log(n, KEY);\n`,
  );
  server.script(
    {
      toolCalls: [
        {
          id: "e1",
          name: "edit",
          arguments: {
            path: "src/main.ts",
            old_string: 'const n: "a" | "b" = "a";',
            new_string: 'const n: "a" | "b" = KEY;',
          },
        },
      ],
    },
    reply.text("done"),
    reply.text("noted"),
  );
  const ctx = loop(root, yes);
  await collect(runUserTurn(ctx, "use the key"));
  const told = messages(2).at(-1)!;
  assert.match(told.content, /edit call e1 \(src\/main\.ts\) introduced 1 error:\nsrc\/main\.ts:3:7: error: Type '"/);
  assert.ok(!told.content.includes(secret), told.content);
  assert.match(told.content, /Type '"…\(literal from another file\)"' is not assignable to type '"a" \| "b"'/);
});

test("EditChecks: a check starts only when begun (the next request on its way) or waited for, in the order of the edits", async () => {
  const checks = new EditChecks();
  const started: string[] = [];
  const check = (name: string, errors: number) => () => {
    started.push(name);
    return Promise.resolve({ errors, report: (subject: string) => `${subject}: ${name}` });
  };
  checks.add("edit call a", check("a", 1));
  checks.add("edit call b", check("b", 0));
  assert.deepEqual(started, [], "adding a check starts nothing");
  assert.equal(checks.unstarted, true);
  assert.deepEqual(checks.take(), [], "nothing has finished");
  checks.begin();
  assert.deepEqual(started, ["a", "b"]);
  assert.equal(checks.unstarted, false);
  await checks.settled();
  assert.deepEqual(checks.take(), [
    { errors: 1, text: "edit call a: a" },
    { errors: 0, text: "edit call b: b" },
  ]);
  assert.equal(checks.waiting, false);
  // Waiting for the checks (the end of a turn) starts those not begun.
  checks.add("edit call c", check("c", 2));
  await checks.settled();
  assert.deepEqual(started, ["a", "b", "c"]);
  assert.deepEqual(checks.take(), [{ errors: 2, text: "edit call c: c" }]);
});
