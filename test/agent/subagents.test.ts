// Subagents (task), todo_write, ask_user, batch and exit_plan_mode in process:
// the real loop and provider code over loopback HTTP, the model played by the
// scripted server. Replies are computed from the request (who is asking: the
// main agent or which subagent), since concurrent subagents reach the server
// in no fixed order.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer, type RecordedRequest, type LlmReply } from "../llm-server.ts";
import { tempTree, rt } from "../helpers.ts";
import { makeAgent, collect, ofType, last, anthropicProvider } from "./harness.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { agentWorkspace } from "../../src/agent/rtOnPath.ts";
import { readSidechains, SessionLog, latestSessionId } from "../../src/agent/session.ts";
import { sessionMarkdown } from "../../src/agent/exportMarkdown.ts";
import type { AgentStreamEvent } from "../../src/agent/events.ts";
import type { ApprovalRequest } from "../../src/agent/approval.ts";
import type { UserQuestion } from "../../src/agent/interaction.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
});
beforeEach(() => server.reset());

type Msg = { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string };
const msgs = (r: RecordedRequest): Msg[] => r.body.messages ?? [];
/** The system prompt: Anthropic's `system` (a string, or text blocks when they carry cache markers), else the system message. */
const systemOf = (r: RecordedRequest): string =>
  Array.isArray(r.body.system)
    ? r.body.system.map((b: { text: string }) => b.text).join("")
    : String(r.body.system ?? msgs(r).find((m) => m.role === "system")?.content ?? "");
const toolNames = (r: RecordedRequest): string[] =>
  (r.body.tools ?? []).map((t: { name?: string; function?: { name: string } }) => t.function?.name ?? t.name);
const firstUser = (r: RecordedRequest): string => String(msgs(r).find((m) => m.role === "user")?.content ?? "");
const toolResults = (r: RecordedRequest): string[] =>
  msgs(r)
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content));
const isSub = (r: RecordedRequest, type: string) => systemOf(r).startsWith(`You are ${type}`);

/** Scripts `n` replies, each computed by `route` from the request it answers. */
function routed(n: number, route: (r: RecordedRequest) => LlmReply): void {
  for (let i = 0; i < n; i++) server.script(route);
}

const CODE = { "src/alpha.py": "def alpha():\n    return 1\n", "src/beta.py": "def beta():\n    return 2\n" };

test("two Explore subagents in one answer run at the same time, each with only its own prompt, tools and history; the parent gets their reports only", async () => {
  const root = tempTree(CODE);
  const firstSeen: Record<string, number> = {};
  const firstDone: Record<string, number> = {};
  routed(6, (r) => {
    if (isSub(r, "Explore")) {
      const which = /alpha/.test(firstUser(r)) ? "alpha" : "beta";
      if (toolResults(r).length === 0) {
        firstSeen[which] = Date.now();
        // Slow first answer: a sequential run would only start the second subagent after it.
        return {
          toolCalls: [{ name: "grep", arguments: { pattern: `def ${which}`, path: "src" }, fragments: 4 }],
          chunkDelayMs: 150,
        };
      }
      firstDone[which] = Date.now();
      return reply.text(`${which} is defined at src/${which}.py:1`);
    }
    if (toolResults(r).length === 0) {
      return {
        toolCalls: [
          {
            id: "call_a",
            name: "task",
            arguments: {
              description: "find alpha",
              prompt: "Where is alpha defined? Report file:line.",
              subagent_type: "Explore",
            },
          },
          {
            id: "call_b",
            name: "task",
            arguments: {
              description: "find beta",
              prompt: "Where is beta defined? Report file:line.",
              subagent_type: "explore",
            },
          },
        ],
      };
    }
    return reply.text("alpha: src/alpha.py:1, beta: src/beta.py:1");
  });
  const agent = makeAgent(root, server, { approval: "ask" });
  const events = (await collect(agent.run("where are alpha and beta?"))) as AgentStreamEvent[];
  const done = last(events);
  assert.equal(done.type, "turn_complete", JSON.stringify(done));
  assert.equal(server.completions.length, 6);

  // Concurrent: each subagent's first request arrived before the other's first answer was over.
  assert.ok(
    firstSeen.alpha < firstDone.beta && firstSeen.beta < firstDone.alpha,
    JSON.stringify({ firstSeen, firstDone }),
  );

  const subs = server.completions.filter((r) => isSub(r, "Explore"));
  assert.equal(subs.length, 4);
  for (const r of subs) {
    // Its own system prompt and read-only tools; not the parent's prompt, tools or conversation.
    assert.deepEqual(toolNames(r).sort(), ["bash", "find", "grep", "ls", "open", "read"]);
    assert.ok(!JSON.stringify(r.body.messages).includes("where are alpha and beta"));
    assert.ok(!systemOf(r).includes("# How to work"));
    assert.match(firstUser(r), /^Where is (alpha|beta) defined\? Report file:line\.$/);
  }
  // The parent's second request: the two reports as the task results, none of the subagents' own tool output.
  const final = server.completions.find((r) => !isSub(r, "Explore") && toolResults(r).length > 0)!;
  // Results come in the order the subagents finished.
  const results = toolResults(final).sort();
  assert.equal(results.length, 2);
  assert.match(results[0], /^alpha is defined at src\/alpha\.py:1\n\n\[subagent Explore: 2 model requests/);
  assert.match(results[1], /^beta is defined at src\/beta\.py:1/);
  assert.ok(
    !results.join("\n").includes("src/alpha.py:1: def alpha"),
    "a subagent's grep output never reaches the parent",
  );
  assert.ok(toolNames(final).includes("task"));

  // The stream: the subagents' events tagged with their task call; start and end events around them.
  const starts = ofType(events, "subagent_start");
  assert.deepEqual(starts.map((s) => [s.parent_tool_use_id, s.subagent_type, s.description]).sort(), [
    ["call_a", "Explore", "find alpha"],
    ["call_b", "Explore", "find beta"],
  ]);
  const nestedGreps = events.filter((e) => e.type === "tool_end" && e.name === "grep");
  assert.equal(nestedGreps.length, 2);
  assert.ok(nestedGreps.every((e) => e.parent_tool_use_id === "call_a" || e.parent_tool_use_id === "call_b"));
  assert.ok(
    events
      .filter((e) => e.type === "text" && e.parent_tool_use_id === undefined)
      .every((e) => e.type === "text" && !/is defined at/.test(e.delta)),
  );

  // Usage rolls up: the session's totals count all six requests; each subagent_end has its own two.
  const ends = ofType(events, "subagent_end");
  assert.equal(ends.length, 2);
  assert.ok(ends.every((e) => e.success && e.usage.requests === 2));
  assert.equal(done.type === "turn_complete" && done.usage.requests, 6);
  assert.equal(agent.usage.usage.requests, 6);

  // Each run is recorded next to the session, linked by the call id; the parent's log has the roll-up.
  const ws = createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined } });
  const side = readSidechains(ws, agent.sessionId);
  assert.deepEqual(side.map((s) => s.link.tool_use_id).sort(), ["call_a", "call_b"]);
  assert.ok(fs.existsSync(path.join(root, ".rt/sessions", agent.sessionId, "call_a.jsonl")));
  const parentState = SessionLog.open(ws, agent.sessionId).state;
  assert.equal(parentState.usage.requests, 6);
  const md = sessionMarkdown(
    JSON.parse(`[${fs.readFileSync(agent.sessionFile!, "utf8").trim().split("\n").join(",")}]`),
    side,
  );
  assert.match(md, /<summary>Subagent Explore: find alpha \(2 model requests/);
  assert.match(md, /### User\n\nWhere is alpha defined\?/);
  // --continue still finds the main session, not a subagent's file.
  assert.equal(latestSessionId(ws), agent.sessionId);
  agent.close();
});

test("Anthropic: a task call's subagent speaks the same protocol; its request has its own system prompt", async () => {
  const root = tempTree(CODE);
  routed(3, (r) => {
    if (isSub(r, "Plan")) return reply.text("1. Edit src/alpha.py:2 to return 3.\n2. Run the tests.");
    const results = msgs(r)
      .flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string }>) : []))
      .filter((b) => b.type === "tool_result");
    if (results.length === 0)
      return reply.toolCall("task", {
        description: "plan the change",
        prompt: "Plan making alpha return 3.",
        subagent_type: "Plan",
      });
    return reply.text("Here is the plan.");
  });
  const agent = makeAgent(root, server, {
    provider: anthropicProvider(server),
    model: "claude-test",
    modelLabel: "anthropic/claude-test",
  });
  const events = await collect(agent.run("plan it"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  const sub = server.completions.find((r) => isSub(r, "Plan"))!;
  assert.match(systemOf(sub), /^You are Plan, a read-only planning subagent/);
  assert.equal(sub.body.messages.length, 1);
  const content = sub.body.messages[0].content;
  assert.equal(
    typeof content === "string" ? content : content.map((b: { text: string }) => b.text).join(""),
    "Plan making alpha return 3.",
  );
  const final = server.completions[2];
  assert.match(JSON.stringify(final.body.messages), /1\. Edit src\/alpha\.py:2 to return 3\./);
  agent.close();
});

/** A project trusted by the user (its .claude/agents are read), with that user's configuration directory. */
async function trustedProject(files: Record<string, string>) {
  const root = tempTree(files);
  const home = tempTree({}, "rt-home-");
  const env = { ...process.env, RT_ROOT: undefined, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  const t = await rt(["trust"], { cwd: root, env });
  assert.equal(t.code, 0, t.stderr);
  return { root, home, env, workspace: agentWorkspace(createWorkspace({ root, env })) };
}

const REVIEWER =
  "---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep\n---\nYou are reviewer. Review the code you are pointed at and list bugs with file:line.\n";

test("a custom agent from .claude/agents with a restricted tool list: offered only those, a call outside them is refused and changes nothing", async () => {
  const p = await trustedProject({ ...CODE, ".claude/agents/reviewer.md": REVIEWER });
  routed(5, (r) => {
    if (isSub(r, "reviewer")) {
      const n = toolResults(r).length;
      if (n === 0) return reply.toolCall("read", { path: "src/alpha.py" });
      if (n === 1)
        return reply.toolCall("edit", { path: "src/alpha.py", old_string: "return 1", new_string: "return 42" });
      return reply.text("src/alpha.py:2 returns a constant.");
    }
    return toolResults(r).length
      ? reply.text("reviewed")
      : reply.toolCall("task", {
          description: "review alpha",
          prompt: "Review src/alpha.py.",
          subagent_type: "reviewer",
        });
  });
  const agent = makeAgent(p.root, server, { workspace: p.workspace });
  const events = await collect(agent.run("review alpha"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  const subs = server.completions.filter((r) => isSub(r, "reviewer"));
  assert.deepEqual(toolNames(subs[0]).sort(), ["grep", "read"]);
  assert.match(systemOf(subs[0]), /^You are reviewer\. Review the code/);
  assert.match(toolResults(subs[2])[1], /unknown tool|not.*(available|offered)|edit/i);
  assert.equal(fs.readFileSync(path.join(p.root, "src/alpha.py"), "utf8"), CODE["src/alpha.py"]);
  agent.close();
});

test("an untrusted project's agent definitions are not read: the task call says so and lists what exists", async () => {
  const root = tempTree({ ...CODE, ".claude/agents/reviewer.md": REVIEWER });
  const home = tempTree({}, "rt-home-");
  const env = { ...process.env, RT_ROOT: undefined, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  server.script(
    reply.toolCall("task", { description: "review", prompt: "Review.", subagent_type: "reviewer" }),
    reply.text("ok"),
  );
  const agent = makeAgent(root, server, { workspace: agentWorkspace(createWorkspace({ root, env })) });
  const events = await collect(agent.run("review"));
  const end = ofType(events, "tool_end")[0];
  assert.equal(end.success, false);
  assert.match(
    end.output,
    /no subagent type "reviewer"; available: general-purpose, Explore, Plan \(the project's agents in .*\.claude\/agents are not read: the folder is not trusted\)/,
  );
  assert.equal(server.completions.length, 2);
  agent.close();
});

test("model: inherit runs on the parent's model; an explicit provider/model is resolved and used, its usage counted", async () => {
  const p = await trustedProject({
    ...CODE,
    ".rt/agents/same.md": "---\ndescription: same model\nmodel: inherit\n---\nYou are same.\n",
    ".rt/agents/other.md": "---\ndescription: other model\nmodel: openai-compatible/small-model\n---\nYou are other.\n",
  });
  routed(4, (r) => {
    if (isSub(r, "same") || isSub(r, "other")) return reply.text(`ran on ${r.body.model}`);
    if (toolResults(r).length) return reply.text("both done");
    return {
      toolCalls: [
        { id: "s", name: "task", arguments: { description: "same", prompt: "Go.", subagent_type: "same" } },
        { id: "o", name: "task", arguments: { description: "other", prompt: "Go.", subagent_type: "other" } },
      ],
    };
  });
  const resolved: string[] = [];
  const agent = makeAgent(p.root, server, {
    workspace: p.workspace,
    resolveModel: async (label) => {
      resolved.push(label);
      return {
        provider: (await import("./harness.ts")).openaiProvider(server),
        model: "small-model",
        label,
        price: { input: 1, output: 2 },
      };
    },
  });
  const events = (await collect(agent.run("go"))) as AgentStreamEvent[];
  assert.equal(last(events).type, "turn_complete");
  assert.deepEqual(resolved, ["openai-compatible/small-model"]);
  const results = toolResults(server.completions[3]);
  assert.match(results.join("\n"), /ran on test-model/);
  assert.match(results.join("\n"), /ran on small-model/);
  const starts = ofType(events, "subagent_start");
  assert.deepEqual(starts.map((s) => s.model).sort(), [
    "openai-compatible/small-model",
    "openai-compatible/test-model",
  ]);
  // The priced subagent's cost is its own and rolls up into the session's.
  const otherEnd = ofType(events, "subagent_end").find((e) => e.parent_tool_use_id === "o")!;
  assert.ok(otherEnd.cost !== undefined && otherEnd.cost > 0);
  assert.equal(agent.usage.cost, otherEnd.cost);
  agent.close();
});

test("a subagent edits a file while another reads it: both finish, the edit lands whole, the reader saw the file before or after it", async () => {
  const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n") + "\n";
  const root = tempTree({ "data.txt": big });
  routed(6, (r) => {
    const sys = systemOf(r);
    if (sys.startsWith("You are a subagent")) {
      const writer = /edit/.test(firstUser(r));
      if (toolResults(r).length === 0) {
        return writer
          ? reply.toolCall("edit", {
              path: "data.txt",
              old_string: "line 1500\n",
              new_string: "LINE FIFTEEN HUNDRED\n",
            })
          : reply.toolCall("read", { path: "data.txt", offset: 1490, limit: 20 });
      }
      return reply.text(
        writer ? "edited" : `read: ${toolResults(r)[0].includes("LINE FIFTEEN HUNDRED") ? "after" : "before"}`,
      );
    }
    if (toolResults(r).length) return reply.text("done");
    return {
      toolCalls: [
        {
          id: "w",
          name: "task",
          arguments: { description: "edit", prompt: "Please edit line 1500.", subagent_type: "general-purpose" },
        },
        {
          id: "r",
          name: "task",
          arguments: { description: "read", prompt: "Please read around line 1500.", subagent_type: "general-purpose" },
        },
      ],
    };
  });
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("go"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  assert.equal(
    fs.readFileSync(path.join(root, "data.txt"), "utf8"),
    big.replace("line 1500\n", "LINE FIFTEEN HUNDRED\n"),
  );
  assert.match(toolResults(server.completions[5]).join("\n"), /read: (before|after)/);
  agent.close();
});

test("Ctrl-C during subagents stops them and the turn; the session keeps a result for every call", async () => {
  const root = tempTree(CODE);
  const controller = new AbortController();
  routed(3, (r) => {
    if (isSub(r, "Explore")) {
      setTimeout(() => controller.abort(), 100);
      return { hang: true };
    }
    return {
      toolCalls: [
        {
          id: "x",
          name: "task",
          arguments: { description: "one", prompt: "Look at alpha.", subagent_type: "Explore" },
        },
        { id: "y", name: "task", arguments: { description: "two", prompt: "Look at beta.", subagent_type: "Explore" } },
      ],
    };
  });
  const agent = makeAgent(root, server);
  const started = Date.now();
  const events = (await collect(agent.run("go", { signal: controller.signal }))) as AgentStreamEvent[];
  assert.ok(Date.now() - started < 10_000);
  const end = last(events);
  assert.equal(end.type, "error");
  assert.equal(end.type === "error" && end.kind, "interrupted");
  assert.equal(end.type === "error" && (end as AgentStreamEvent).parent_tool_use_id, undefined);
  const results = agent.contextMessages.filter((e) => e.message.role === "tool");
  assert.equal(results.length, 2);
  assert.ok(ofType(events, "subagent_end").every((e) => !e.success));
  agent.close();
});

test("approvals apply inside subagents and say which subagent asks; a subagent cannot start another subagent", async () => {
  const root = tempTree(CODE);
  routed(4, (r) => {
    if (systemOf(r).startsWith("You are a subagent")) {
      if (toolResults(r).length === 0) {
        assert.ok(!toolNames(r).includes("task"), "depth 1: no task tool for a subagent");
        return { toolCalls: [{ name: "bash", arguments: { command: "touch made-by-sub" } }] };
      }
      return reply.text(`bash said: ${toolResults(r)[0].slice(0, 60)}`);
    }
    return toolResults(r).length
      ? reply.text("done")
      : reply.toolCall("task", {
          description: "make a file",
          prompt: "Create the file.",
          subagent_type: "general-purpose",
        });
  });
  const asked: ApprovalRequest[] = [];
  const agent = makeAgent(root, server, {
    approval: "ask",
    approve: async (req) => {
      asked.push(req);
      return { answer: "no", reason: "not in this folder" };
    },
  });
  const events = await collect(agent.run("go"));
  assert.equal(last(events).type, "turn_complete");
  // The user's reason reaches the subagent's model with the denial.
  const subSecond = server.completions.find(
    (r) => systemOf(r).startsWith("You are a subagent") && toolResults(r).length === 1,
  )!;
  assert.match(
    toolResults(subSecond)[0],
    /the user denied bash: touch made-by-sub: it was not run\. The user said why: "not in this folder"\./,
  );
  assert.equal(asked.length, 1);
  assert.equal(asked[0].agent, "general-purpose: make a file");
  assert.equal(asked[0].summary, "bash: touch made-by-sub");
  assert.ok(!fs.existsSync(path.join(root, "made-by-sub")));
  // A direct task call from a subagent (were it to name the tool anyway) is refused too.
  agent.close();
});

test("todo_write: the list replaces the last one, one item in progress at most, an event each time, restored on --continue, recalled when left unchanged", async () => {
  const root = tempTree(CODE);
  const todos = (statuses: string[]) => ({
    todos: statuses.map((status, i) => ({ content: `Step ${i + 1}`, activeForm: `Doing step ${i + 1}`, status })),
  });
  server.script(
    reply.toolCall("todo_write", todos(["in_progress", "pending", "pending"])),
    reply.toolCall("todo_write", todos(["in_progress", "in_progress", "pending"])),
    reply.toolCall("todo_write", todos(["completed", "in_progress", "pending"])),
    ...Array.from({ length: 6 }, (_, i) => reply.toolCall("read", { path: "src/alpha.py", offset: 1 + (i % 2) })),
    reply.text("paused"),
  );
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("three steps"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  const changes = ofType(events, "todos");
  assert.equal(changes.length, 2);
  assert.deepEqual(
    changes[1].todos.map((t) => t.status),
    ["completed", "in_progress", "pending"],
  );
  const second = ofType(events, "tool_end")[1];
  assert.equal(second.success, false);
  assert.match(second.output, /2 items are in_progress .*keep exactly one in progress/);
  assert.deepEqual(
    agent.todos.map((t) => t.status),
    ["completed", "in_progress", "pending"],
  );
  // The reminder: after five requests with the list unchanged, the next request carries it (and only that one).
  const reminded = server.completions.map((r) => JSON.stringify(r.body.messages).includes("<system-reminder>"));
  assert.deepEqual(reminded, [false, false, false, false, false, false, false, false, true, false]);
  assert.match(JSON.stringify(server.completions[8].body.messages), /\[x\] Step 1\\n\[>\] Step 2\\n\[ \] Step 3/);
  agent.close();
  // --continue: the list comes back from the log.
  const ws = agentWorkspace(createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined } }));
  const resumed = makeAgent(root, server, { workspace: ws, session: SessionLog.open(ws, agent.sessionId) });
  assert.deepEqual(
    resumed.todos.map((t) => t.content),
    ["Step 1", "Step 2", "Step 3"],
  );
  resumed.close();
});

test("ask_user: the face's answers come back as the result; without a face the model is told nobody can answer; bad questions are refused", async () => {
  const root = tempTree(CODE);
  const q = {
    questions: [
      {
        question: "Which database?",
        header: "Database",
        options: [
          { label: "SQLite", description: "a file" },
          { label: "Postgres", description: "a server" },
        ],
        multiSelect: false,
      },
      {
        question: "Which extras?",
        header: "Extras",
        options: [
          { label: "Cache", description: "" },
          { label: "Metrics", description: "" },
          { label: "Auth", description: "" },
        ],
        multiSelect: true,
      },
    ],
  };
  server.script(reply.toolCall("AskUserQuestion", q), reply.text("ok"));
  const seen: UserQuestion[][] = [];
  const withFace = makeAgent(root, server, {
    interaction: {
      askUser: async (questions) => {
        seen.push(questions);
        return [
          { question: questions[0].question, selected: ["Postgres"] },
          { question: questions[1].question, selected: ["Cache", "Auth"], other: "and logging" },
        ];
      },
    },
  });
  await collect(withFace.run("set it up"));
  assert.equal(seen.length, 1);
  assert.equal(seen[0][1].multiSelect, true);
  const answer = toolResults(server.completions[1])[0];
  assert.equal(
    answer,
    'The user answered:\n"Which database?" → "Postgres"\n"Which extras?" → "Cache", "Auth", Other: "and logging"\nGo on with these answers in mind.',
  );
  withFace.close();

  server.reset();
  server.script(
    reply.toolCall("ask_user", q),
    reply.toolCall("ask_user", { questions: [{ ...q.questions[0], header: "A header longer than twelve" }] }),
    reply.text("assumed SQLite"),
  );
  const noFace = makeAgent(root, server);
  const events = await collect(noFace.run("set it up"));
  assert.equal(last(events).type, "turn_complete");
  assert.match(
    toolResults(server.completions[1])[0],
    /No user can answer questions in this session .* proceed with your best assumption/,
  );
  assert.match(toolResults(server.completions[2])[1], /header is at most 12 characters/);
  noFace.close();
});

test("batch: read-only invocations run in parallel, writes in order, every result numbered; a loop tool inside is refused; approvals still apply", async () => {
  const root = tempTree({ ...CODE, "w.txt": "one\n" });
  server.script(
    reply.toolCall("batch", {
      invocations: [
        { tool_name: "grep", input: { pattern: "def", path: "src" } },
        { tool_name: "read", input: { path: "src/beta.py" } },
        { tool_name: "edit", input: { path: "w.txt", old_string: "one", new_string: "two" } },
        { tool_name: "edit", input: { path: "w.txt", old_string: "two", new_string: "three" } },
        { tool_name: "bash", input: { command: "touch by-batch" } },
      ],
    }),
    reply.toolCall("BatchTool", {
      invocations: [{ tool_name: "task", input: { description: "x", prompt: "x", subagent_type: "Explore" } }],
    }),
    reply.text("done"),
  );
  const asked: string[] = [];
  const agent = makeAgent(root, server, {
    approval: "auto-edit",
    approve: async (req) => {
      asked.push(req.summary);
      return "no";
    },
  });
  const events = (await collect(agent.run("go"))) as AgentStreamEvent[];
  assert.equal(last(events).type, "turn_complete");
  assert.equal(fs.readFileSync(path.join(root, "w.txt"), "utf8"), "three\n");
  assert.deepEqual(asked, ["bash: touch by-batch"]);
  assert.ok(!fs.existsSync(path.join(root, "by-batch")));
  const result = toolResults(server.completions[1])[0];
  assert.match(result, /^5 calls, 1 failed\n\n### 1\. grep "def" src\nsrc\/alpha\.py:1: def alpha\(\):/);
  assert.match(result, /### 3\. edit w\.txt\n/);
  assert.match(result, /### 5\. bash: touch by-batch \(failed\)\nblocked: the user denied/);
  // Nested calls show in the stream under their own ids.
  const starts = ofType(events, "tool_start");
  const batchId = starts[0].id;
  assert.deepEqual(
    starts
      .slice(1, 5)
      .map((e) => e.id)
      .sort(),
    [1, 2, 3, 4].map((i) => `${batchId}.${i}`),
  );
  assert.equal(ofType(events, "tool_blocked")[0].id, `${batchId}.5`);
  assert.match(toolResults(server.completions[2])[1], /task cannot run inside batch: call it directly/);
  agent.close();
});

test("exit_plan_mode: offered in plan mode only; without a face the plan is the turn's answer; a face accepts (the mode changes, edits run) or rejects with feedback", async () => {
  const root = tempTree(CODE);
  const PLAN = "1. Change src/alpha.py:2 to return 3.";
  server.script(reply.toolCall("exit_plan_mode", { plan: PLAN }));
  const run = makeAgent(root, server, { approval: "plan" });
  const events = await collect(run.run("plan it"));
  const done = last(events);
  assert.equal(done.type, "turn_complete", JSON.stringify(done));
  assert.equal(done.type === "turn_complete" && done.text, PLAN);
  assert.ok(toolNames(server.completions[0]).includes("exit_plan_mode"));
  assert.ok(!toolNames(server.completions[0]).includes("edit"));
  run.close();

  server.reset();
  const decisions = [
    { accept: false as const, feedback: "also update the docstring" },
    { accept: true as const, approval: "auto-edit" as const },
  ];
  server.script(
    reply.toolCall("ExitPlanMode", { plan: PLAN }),
    reply.toolCall("exit_plan_mode", { plan: `${PLAN}\n2. Update the docstring.` }),
    reply.toolCall("edit", { path: "src/alpha.py", old_string: "return 1", new_string: "return 3" }),
    reply.text("done"),
  );
  const reviewed: string[] = [];
  const chat = makeAgent(root, server, {
    approval: "plan",
    interaction: {
      reviewPlan: async (plan) => {
        reviewed.push(plan);
        return decisions.shift()!;
      },
    },
  });
  const ev2 = await collect(chat.run("plan it"));
  assert.equal(last(ev2).type, "turn_complete", JSON.stringify(last(ev2)));
  assert.equal(reviewed.length, 2);
  assert.match(toolResults(server.completions[1])[0], /The user rejected the plan and said: also update the docstring/);
  assert.match(
    toolResults(server.completions[2])[1],
    /The user accepted the plan\. You have left plan mode \(approval mode: auto-edit\)/,
  );
  assert.ok(toolNames(server.completions[2]).includes("edit"));
  assert.ok(!toolNames(server.completions[2]).includes("exit_plan_mode"));
  assert.equal(chat.approvalMode, "auto-edit");
  assert.equal(fs.readFileSync(path.join(root, "src/alpha.py"), "utf8"), "def alpha():\n    return 3\n");
  chat.close();
});

test("untrusted state and definitions: a planted subagent log is not exported, a symlinked agents folder and a FIFO are not read", async () => {
  const outside = tempTree({ "agents/evil.md": "---\ndescription: evil\n---\nYou are evil.\n" });
  const p = await trustedProject({ ...CODE, ".rt/agents/ok.md": "---\ndescription: fine\n---\nYou are ok.\n" });
  fs.symlinkSync(path.join(outside), path.join(p.root, ".claude"));
  const { execFileSync } = await import("node:child_process");
  execFileSync("mkfifo", [path.join(p.root, ".rt/agents/pipe.md")]);
  const { loadAgentDefinitions } = await import("../../src/extensions/agentDefinitions.ts");
  // Planted after trust: the folder's extension files changed, so none of them is read until it is trusted again.
  assert.deepEqual(
    (await loadAgentDefinitions(p.workspace)).agents.map((a) => a.name),
    ["general-purpose", "Explore", "Plan"],
  );
  const again = await rt(["trust"], { cwd: p.root, env: p.env });
  assert.equal(again.code, 0, again.stderr);
  const started = Date.now();
  const load = await loadAgentDefinitions(p.workspace);
  assert.ok(Date.now() - started < 5000, "a FIFO must not block");
  assert.deepEqual(
    load.agents.map((a) => a.name),
    ["ok", "general-purpose", "Explore", "Plan"],
  );
  assert.ok(load.problems.some((x) => /pipe\.md/.test(x.file) && /not a regular file/.test(x.message)));
  assert.ok(load.problems.some((x) => x.file === path.join(p.root, ".claude") && /symbolic link/.test(x.message)));

  server.script(reply.text("hi"));
  const agent = makeAgent(p.root, server, { workspace: p.workspace });
  await collect(agent.run("hello"));
  agent.close();
  // A sidechain whose header rt did not sign (a repository's, a planted one) is not part of the session.
  const dir = path.join(p.root, ".rt/sessions", agent.sessionId);
  fs.mkdirSync(dir, { recursive: true });
  const forged = {
    t: "session",
    v: 1,
    id: `${agent.sessionId}/x`,
    created: new Date().toISOString(),
    root: p.root,
    model: "m",
    protocol: "tools",
    parent: { session: agent.sessionId, tool_use_id: "x", subagent_type: "Explore", description: "forged" },
    mac: "0".repeat(64),
  };
  fs.writeFileSync(path.join(dir, "x.jsonl"), `${JSON.stringify(forged)}\n`);
  assert.deepEqual(readSidechains(createWorkspace({ root: p.root, env: p.env }), agent.sessionId), []);
});

test("at most 10 subagents run at once: of twelve task calls in one answer, the last two start when places free up", async () => {
  const root = tempTree(CODE);
  const arrivals: number[] = [];
  routed(14, (r) => {
    if (isSub(r, "Explore")) {
      arrivals.push(Date.now());
      return { text: ["one ", "two ", "three ", "four ", "five"], chunkDelayMs: 150 };
    }
    if (toolResults(r).length) return reply.text("all done");
    return {
      toolCalls: Array.from({ length: 12 }, (_, i) => ({
        id: `t${i}`,
        name: "task",
        arguments: { description: `job ${i}`, prompt: `Job ${i}.`, subagent_type: "Explore" },
      })),
    };
  });
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("go"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  assert.equal(arrivals.length, 12);
  // In the order the events came: how many subagents were running at each moment.
  let running = 0;
  let most = 0;
  for (const e of events) {
    if (e.type === "subagent_start") most = Math.max(most, ++running);
    if (e.type === "subagent_end") running--;
  }
  assert.equal(most, 10);
  assert.equal(toolResults(server.completions[13]).length, 12);
  agent.close();
});

test("parallel subagents ask one question at a time; after Ctrl-C, the questions still queued are not asked", async () => {
  const root = tempTree(CODE);
  routed(3, (r) => {
    if (systemOf(r).startsWith("You are a subagent"))
      return {
        toolCalls: [{ name: "bash", arguments: { command: `touch ${/one/.test(firstUser(r)) ? "one" : "two"}` } }],
      };
    return {
      toolCalls: [
        {
          id: "p",
          name: "task",
          arguments: { description: "one", prompt: "Make file one.", subagent_type: "general-purpose" },
        },
        {
          id: "q",
          name: "task",
          arguments: { description: "two", prompt: "Make file two.", subagent_type: "general-purpose" },
        },
      ],
    };
  });
  const controller = new AbortController();
  const asked: string[] = [];
  let open = 0;
  const agent = makeAgent(root, server, {
    approval: "ask",
    approve: async (req) => {
      assert.equal(open++, 0, "one question at a time");
      asked.push(req.agent!);
      await new Promise((r) => setTimeout(r, 50));
      controller.abort(); // Ctrl-C while the first question is on screen
      open--;
      return "no";
    },
  });
  const events = await collect(agent.run("go", { signal: controller.signal }));
  assert.equal(last(events).type, "error");
  assert.equal(asked.length, 1);
  assert.ok(!fs.existsSync(path.join(root, "one")) && !fs.existsSync(path.join(root, "two")));
  agent.close();
});
