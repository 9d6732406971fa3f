// The agent's pure parts, by table: approval decisions, text-mode parsing,
// output cutting, compaction boundaries, session replay and repair, request
// building.
import { test } from "node:test";
import assert from "node:assert/strict";
import { decide, categoryOf, type ApprovalMode } from "../../src/agent/approval.ts";
import { parseActions, textualToolCalls } from "../../src/agent/textProtocol.ts";
import { cutMiddle } from "../../src/agent/truncate.ts";
import { keepFrom, outputsToPrune, filesTouched } from "../../src/agent/compaction.ts";
import { replay, repairRecords, type SessionRecord, type ContextEntry } from "../../src/agent/session.ts";
import { requestMessages } from "../../src/agent/requestMessages.ts";
import { findTool } from "../../src/tools/registry.ts";

test("approval decisions: mode × category", () => {
  const table: Array<[ApprovalMode, "read" | "edit" | "command", boolean, string]> = [
    ["ask", "read", false, "allow"],
    ["ask", "edit", false, "ask"],
    ["ask", "command", false, "ask"],
    ["ask", "command", true, "allow"],
    ["auto-edit", "edit", false, "allow"],
    ["auto-edit", "command", false, "ask"],
    ["auto-edit", "command", true, "allow"],
    ["auto", "command", false, "allow"],
    ["auto", "edit", false, "allow"],
    ["never", "read", false, "allow"],
    ["never", "edit", true, "deny"],
    ["never", "command", false, "deny"],
    ["plan", "read", false, "allow"],
    ["plan", "edit", true, "deny"],
  ];
  for (const [mode, cat, always, want] of table)
    assert.equal(decide(mode, cat, always), want, `${mode} ${cat} always=${always}`);
  const cat = (n: string) => categoryOf(findTool(n)!);
  assert.deepEqual(["read", "grep", "sql_query", "bash_output"].map(cat), ["read", "read", "read", "read"]);
  assert.deepEqual(["edit", "edit_lines", "write", "undo_edit", "write_output"].map(cat), [
    "edit",
    "edit",
    "edit",
    "edit",
    "edit",
  ]);
  assert.equal(cat("bash"), "command");
});

test("text mode parsing: bash/sh blocks, JSON actions in their three shapes, invalid ones explained, other blocks ignored", () => {
  const text = [
    "I will look.",
    "```bash",
    "rt grep foo src",
    "```",
    "```python",
    "print('not run')",
    "```",
    "```sh",
    "rt edit a.py 1 2 <<'EOF'",
    "x = 1",
    "EOF",
    "```",
    '```json\n{"action": "edit_file", "path": "a", "old": "x", "new": "y"}\n```',
    '```json\n{"tool": "read", "args": {"path": "b"}}\n```',
    '```json\n[{"name": "ls", "arguments": "{}"}]\n```',
    '```json\n{"action": "frobnicate"}\n```',
    '```json\n{"action": "read", "path": \n```',
    '```json\n{"just": "data"}\n```',
    "```",
    "plain block",
    "```",
  ].join("\n");
  const actions = parseActions(text);
  assert.deepEqual(actions, [
    { kind: "bash", command: "rt grep foo src" },
    { kind: "bash", command: "rt edit a.py 1 2 <<'EOF'\nx = 1\nEOF" },
    { kind: "tool", name: "edit_file", args: { path: "a", old: "x", new: "y" } },
    { kind: "tool", name: "read", args: { path: "b" } },
    { kind: "tool", name: "ls", args: {} },
    {
      kind: "invalid",
      error: 'unknown action "frobnicate"; use a tool name (rt tools lists them) or a bash block',
      raw: '{"action": "frobnicate"}',
    },
    actions[6],
  ]);
  assert.equal(actions[6].kind, "invalid");
  // A longer fence keeps inner ``` lines (a here-doc writing markdown) inside the block.
  const nested = parseActions("````bash\nrt write x.md <<'EOF'\n```\ncode\n```\nEOF\n````");
  assert.equal(nested.length, 1);
  assert.match((nested[0] as { command: string }).command, /```\ncode\n```/);
  assert.deepEqual(parseActions("No blocks, just the answer."), []);
});

test("tool calls written as text are recognized only for real tool names", () => {
  assert.deepEqual(textualToolCalls('<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call>'), [
    { name: "read", args: { path: "a" } },
  ]);
  assert.deepEqual(textualToolCalls('{"name": "grep", "parameters": {"pattern": "x"}}'), [
    { name: "grep", args: { pattern: "x" } },
  ]);
  assert.deepEqual(textualToolCalls('```json\n{"name": "open", "arguments": "{\\"path\\": \\"a:3\\"}"}\n```'), [
    { name: "open", args: { path: "a:3" } },
  ]);
  assert.deepEqual(textualToolCalls('{"name": "Alice", "arguments": {}}'), []);
  assert.deepEqual(textualToolCalls("Here is the answer: the name field is required."), []);
});

test("cutMiddle keeps head and tail around a marker, within the limit", () => {
  const text = Array.from({ length: 1000 }, (_, i) => `row ${i}`).join("\n");
  const r = cutMiddle(text, 2000, "saved in X");
  assert.ok(r.text.length <= 2000);
  assert.ok(r.text.startsWith("row 0\n"));
  assert.ok(r.text.endsWith("row 999"));
  assert.match(r.text, /\n\[\.\.\. [\d,]+ of [\d,]+ characters cut here; saved in X \.\.\.\]\n/);
  assert.equal(r.cut, text.length - (r.text.length - /\n\[.*\]\n/.exec(r.text)![0].length));
  assert.deepEqual(cutMiddle("short", 100, "x"), { text: "short", cut: 0 });
});

const u = (content: string, i: number): ContextEntry => ({ i, message: { role: "user", content } });
const a = (content: string, i: number, calls: string[] = []): ContextEntry => ({
  i,
  message: {
    role: "assistant",
    content,
    ...(calls.length ? { toolCalls: calls.map((id) => ({ id, name: "read", arguments: '{"path":"f"}' })) } : {}),
  },
});
const t = (id: string, content: string, i: number): ContextEntry => ({
  i,
  message: { role: "tool", toolCallId: id, name: "read", content },
});

test("compaction boundaries: the verbatim tail never starts with a tool result; recent and unseen outputs are not pruned", () => {
  const big = "x".repeat(4000); // ~1000 tokens
  const ctx = [u("goal", 0), a("", 1, ["c1"]), t("c1", big, 2), a("", 3, ["c2"]), t("c2", big, 4), a("done", 5)];
  // Budget fits only the last message: tail = [a5].
  assert.equal(keepFrom(ctx, 50), 5);
  // Budget fits t4 and a5 but not a3: t4 cannot be kept without its call, so the tail is [a5].
  assert.equal(keepFrom(ctx, 1010), 5);
  // Budget fits a3, t4, a5.
  assert.equal(keepFrom(ctx, 1020), 3);
  // Everything fits: nothing to summarize.
  assert.equal(keepFrom(ctx, 2100), 0);
  // Pruning: protect ~1000 tokens of recent output → the older output goes.
  assert.deepEqual(outputsToPrune(ctx, 1100), [2]);
  // Outputs after the last assistant message are unseen: kept even over the budget.
  const unseen = [u("goal", 0), a("", 1, ["c1"]), t("c1", big, 2), a("", 3, ["c2"]), t("c2", big, 4)];
  assert.deepEqual(outputsToPrune(unseen, 10), [2]);
});

test("files touched come from editing calls and rt edit commands", () => {
  const ctx: ContextEntry[] = [
    {
      message: {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "1", name: "edit", arguments: '{"path":"src/a.ts","old_string":"x","new_string":"y"}' },
          { id: "2", name: "read", arguments: '{"path":"src/b.ts"}' },
        ],
      },
    },
    { message: { role: "assistant", content: "```bash\nrt edit src/c.py 1 2 <<'EOF'\nx\nEOF\n```" } },
  ];
  assert.deepEqual(filesTouched(ctx), ["src/a.ts", "src/c.py"]);
});

test("session replay applies prune, compaction and clear; repair closes what a kill left open", () => {
  const ts = "t";
  const header: SessionRecord = {
    t: "session",
    v: 1,
    id: "s",
    created: ts,
    root: "/r",
    model: "m/x",
    protocol: "auto",
  };
  const recs: SessionRecord[] = [
    header,
    { t: "message", i: 0, message: { role: "user", content: "one" }, ts },
    {
      t: "message",
      i: 1,
      message: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: "{}" }] },
      ts,
    },
    { t: "message", i: 2, message: { role: "tool", toolCallId: "c1", name: "read", content: "BIG" }, ts },
    { t: "prune", indices: [2], placeholder: "[pruned]", ts },
    {
      t: "usage",
      usage: { input_tokens: 10, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0, requests: 1 },
      cost: 0.5,
      model: "m/x",
      ts,
    },
    { t: "message", i: 3, message: { role: "assistant", content: "two" }, ts },
  ];
  let st = replay(recs);
  assert.equal(st.context[2].message.content, "[pruned]");
  assert.equal(st.messages[2].message.content, "BIG", "the full history keeps it");
  assert.equal(st.usage.input_tokens, 10);
  assert.equal(st.cost, 0.5);
  st = replay([
    ...recs,
    { t: "compaction", summary: "SUM", keep_from: 3, ts },
    { t: "protocol", protocol: "text", ts },
  ]);
  assert.deepEqual(
    st.context.map((e) => [e.message.role, e.message.content]),
    [
      [
        "user",
        `Summary of the earlier part of this session (older messages were compacted; this replaces them):\n\nSUM`,
      ],
      ["assistant", "two"],
    ],
  );
  assert.equal(st.protocol, "text");
  assert.deepEqual(replay([...recs, { t: "clear", next: 4, ts }]).context, []);

  // A kill mid-answer and one mid-tool-call.
  assert.deepEqual(repairRecords(recs), []);
  const killedStreaming = [
    ...recs,
    { t: "message", i: 4, message: { role: "user", content: "three" }, ts } as SessionRecord,
    { t: "delta", kind: "text", delta: "par" } as SessionRecord,
    { t: "delta", kind: "text", delta: "tial" } as SessionRecord,
  ];
  const fix = repairRecords(killedStreaming);
  assert.equal(fix.length, 1);
  assert.match((fix[0] as { message: { content: string } }).message.content, /^partial\n\n\[interrupted/);
  const killedInTool = [
    ...recs,
    {
      t: "message",
      i: 4,
      message: { role: "assistant", content: "", toolCalls: [{ id: "c9", name: "bash", arguments: "{}" }] },
      ts,
    } as SessionRecord,
  ];
  const fix2 = repairRecords(killedInTool);
  assert.equal(fix2.length, 1);
  assert.equal((fix2[0] as { message: { role: string; toolCallId: string } }).message.toolCallId, "c9");
});

test("request messages: consecutive user messages are joined; text protocol shows native calls as JSON actions", () => {
  const ctx: ContextEntry[] = [
    { origin: "summary", message: { role: "user", content: "SUMMARY" } },
    u("next", 1),
    a("", 2),
    a("looking", 3, ["c1"]),
    t("c1", "file text", 4),
    u("more", 5),
  ];
  const tools = requestMessages("SYS", ctx, "tools");
  assert.deepEqual(
    tools.map((m) => m.role),
    ["system", "user", "assistant", "tool", "user"],
  );
  assert.equal(tools[1].content, "SUMMARY\n\nnext");
  const text = requestMessages("SYS", ctx, "text");
  assert.deepEqual(
    text.map((m) => m.role),
    ["system", "user", "assistant", "user"],
  );
  assert.equal(text[2].content, 'looking\n\n```json\n{"action":"read","path":"f"}\n```');
  assert.equal(text[3].content, "[rt] Output of read:\nfile text\n\nmore");
  assert.equal((text[2] as { toolCalls?: unknown }).toolCalls, undefined);
});

test("two sessions drawing the same id in the same second get two files (never one appended to the other)", async () => {
  const { tempTree } = await import("../helpers.ts");
  const { createWorkspace } = await import("../../src/workspace/workspace.ts");
  const { SessionLog, readRecords } = await import("../../src/agent/session.ts");
  const crypto = (await import("node:crypto")).default;
  const ws = createWorkspace({ root: tempTree({}), env: { ...process.env, RT_ROOT: undefined, RT_STATE: undefined } });
  // Start early in a second, so both ids carry the same time stamp.
  while (new Date().getMilliseconds() > 500) await new Promise((r) => setTimeout(r, 20));
  const real = crypto.randomBytes;
  const draws = [Buffer.from([0xab, 0xcd]), Buffer.from([0xab, 0xcd]), Buffer.from([0x12, 0x34])];
  (crypto as { randomBytes: unknown }).randomBytes = (n: number) => draws.shift() ?? real(n);
  let a, b;
  try {
    a = SessionLog.create(ws, "m/a", "tools");
    b = SessionLog.create(ws, "m/b", "tools");
  } finally {
    (crypto as { randomBytes: unknown }).randomBytes = real;
  }
  a.log.appendMessage({ role: "user", content: "prompt of a" });
  b.log.appendMessage({ role: "user", content: "prompt of b" });
  a.log.close();
  b.log.close();
  assert.notEqual(a.log.id, b.log.id);
  assert.notEqual(a.log.file, b.log.file);
  assert.equal(b.state.header.id, b.log.id);
  const ra = readRecords(a.log.file!);
  const rb = readRecords(b.log.file!);
  assert.deepEqual(
    ra.map((r) => r.t),
    ["session", "message"],
  );
  assert.deepEqual(
    rb.map((r) => r.t),
    ["session", "message"],
  );
  assert.equal((rb[0] as { id: string }).id, b.log.id);
  assert.equal((rb[1] as { message: { content: string } }).message.content, "prompt of b");
});

test("--continue's latest session skips files in .rt/sessions that are not sessions", async () => {
  const { tempTree } = await import("../helpers.ts");
  const { createWorkspace } = await import("../../src/workspace/workspace.ts");
  const { SessionLog, latestSessionId } = await import("../../src/agent/session.ts");
  const fs = (await import("node:fs")).default;
  const path = (await import("node:path")).default;
  const ws = createWorkspace({ root: tempTree({}), env: { ...process.env, RT_ROOT: undefined, RT_STATE: undefined } });
  const s = SessionLog.create(ws, "m/a", "tools");
  s.log.appendMessage({ role: "user", content: "hello" });
  s.log.close();
  const stray = path.join(path.dirname(s.log.file!), "notes.jsonl");
  fs.writeFileSync(stray, '{"some": "other data"}\n');
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(stray, later, later);
  assert.equal(latestSessionId(ws), s.log.id);
});
