// `rt acp` as an editor drives it: the official ACP SDK's client side over
// stdio against the built CLI in a child process, the model played by the
// scripted server (Ollama's protocol, through OLLAMA_HOST).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { reply } from "../llm-server.ts";
import { tempTree, CLI, treeHash } from "../helpers.ts";
import { scriptedOllama } from "../agent/harness.ts";
import { eventUpdates, stopReasonOf, toolKind, toolLocations } from "../../src/faces/acp/updates.ts";

const ollama = scriptedOllama();
const CALC = "def add(a, b):\n    return a - b\n";

interface Editor {
  child: ChildProcessWithoutNullStreams;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  writes: acp.WriteTextFileRequest[];
  /** Answers to permission questions, in order: an option id, or "cancel". */
  answers: string[];
  /** The editor's unsaved text by absolute path (what fs/read_text_file answers instead of the disk). */
  buffers: Map<string, string>;
  reads: string[];
  /** Terminals rt asked the editor for (when it offers them), as the editor ran them. */
  terminals: EditorTerminal[];
  stderr: () => string;
}

interface EditorTerminal {
  create: acp.CreateTerminalRequest;
  output: string;
  exit?: { exitCode: number | null; signal: string | null };
  exited: Promise<void>;
  released: boolean;
  killed: boolean;
}

function startRt(cwd: string, extra: string[] = [], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI, "acp", "--model", "ollama/test-model", ...extra], {
    cwd,
    env: { ...process.env, ...ollama.env(), ...env } as NodeJS.ProcessEnv,
  });
}

/** Runs `op` with an SDK client connected to a fresh `rt acp`. */
async function withEditor<T>(
  cwd: string,
  op: (ctx: acp.ClientContext, editor: Editor) => Promise<T>,
  opts: { writeTextFile?: boolean; terminal?: boolean; args?: string[]; env?: Record<string, string> } = {},
): Promise<T> {
  const child = startRt(cwd, opts.args, opts.env);
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const editor: Editor = {
    child,
    updates: [],
    permissions: [],
    writes: [],
    answers: [],
    buffers: new Map(),
    reads: [],
    terminals: [],
    stderr: () => err,
  };
  const terminalOf = (id: string) => {
    const t = editor.terminals[Number(id.replace("term-", ""))];
    if (!t) throw new Error(`no terminal ${id}`);
    return t;
  };
  const app = acp
    .client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      editor.updates.push(params);
    })
    .onRequest("session/request_permission", ({ params }) => {
      editor.permissions.push(params);
      const answer = editor.answers.shift() ?? "reject_once";
      return answer === "cancel"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: answer } };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      editor.writes.push(params);
      return {};
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      editor.reads.push(params.path);
      return { content: editor.buffers.get(params.path) ?? fs.readFileSync(params.path, "utf8") };
    })
    // The editor's terminals: the command runs as an editor would run it, output kept within the limit.
    .onRequest("terminal/create", ({ params }) => {
      const env = { ...process.env };
      for (const v of params.env ?? []) env[v.name] = v.value;
      const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? cwd, env });
      const t: EditorTerminal = {
        create: params,
        output: "",
        exited: new Promise((r) =>
          proc.once("close", (code, signal) => {
            t.exit = { exitCode: code, signal };
            r();
          }),
        ),
        released: false,
        killed: false,
      };
      const keep = (d: Buffer) => {
        t.output += d.toString();
        const limit = params.outputByteLimit;
        if (limit && Buffer.byteLength(t.output) > limit) t.output = t.output.slice(-limit);
      };
      proc.stdout.on("data", keep);
      proc.stderr.on("data", keep);
      (t as EditorTerminal & { proc: typeof proc }).proc = proc;
      editor.terminals.push(t);
      return { terminalId: `term-${editor.terminals.length - 1}` };
    })
    .onRequest("terminal/wait_for_exit", async ({ params }) => {
      const t = terminalOf(params.terminalId);
      await t.exited;
      return t.exit!;
    })
    .onRequest("terminal/output", ({ params }) => {
      const t = terminalOf(params.terminalId);
      return { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) };
    })
    .onRequest("terminal/kill", ({ params }) => {
      const t = terminalOf(params.terminalId) as EditorTerminal & { proc: { kill(): void } };
      t.killed = true;
      t.proc.kill();
      return {};
    })
    .onRequest("terminal/release", ({ params }) => {
      terminalOf(params.terminalId).released = true;
      return {};
    });
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  try {
    return await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {
          fs: { readTextFile: true, writeTextFile: opts.writeTextFile ?? true },
          terminal: opts.terminal ?? false,
        },
      });
      assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
      assert.equal(init.agentCapabilities?.loadSession, true);
      return op(ctx, editor);
    });
  } finally {
    child.stdin.end();
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
  }
}

const updatesOf = (e: Editor, kind: string) =>
  e.updates.map((n) => n.update).filter((u) => u.sessionUpdate === kind) as Array<Record<string, any>>;

test("a session: streamed text, a permission rejected then allowed, the edit as a diff through fs/write_text_file, the todo list as a plan", async () => {
  const root = tempTree({ "src/calc.py": CALC });
  ollama.server.script(
    reply.toolCall("edit", { path: "src/calc.py", old_string: "return a - b", new_string: "return a + b" }),
    reply.toolCall("edit", { path: "src/calc.py", old_string: "return a - b", new_string: "return a + b" }),
    reply.toolCall("todo_write", {
      todos: [
        { content: "Fix add", activeForm: "Fixing add", status: "completed" },
        { content: "Run the tests", activeForm: "Running the tests", status: "pending" },
      ],
    }),
    reply.text("Fixed add in src/calc.py."),
  );
  await withEditor(root, async (ctx, editor) => {
    editor.answers.push("reject_once", "allow_once");
    const created = await ctx.request("session/new", { cwd: root, mcpServers: [] });
    assert.equal(created.modes?.currentModeId, "ask");
    assert.deepEqual(
      created.modes?.availableModes.map((m) => m.id),
      ["ask", "auto-edit", "plan", "auto", "never"],
    );
    const done = await ctx.request("session/prompt", {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "add() is wrong, fix it" }],
    });
    assert.equal(done.stopReason, "end_turn", editor.stderr());

    // Two questions: the first rejected (the model was told), the second allowed.
    assert.equal(editor.permissions.length, 2);
    assert.equal(editor.permissions[0].toolCall.kind, "edit");
    assert.deepEqual(
      editor.permissions[0].options.map((o) => o.kind),
      ["allow_once", "allow_always", "reject_once"],
    );
    assert.match(JSON.stringify(ollama.server.completions[1].body.messages), /the user denied edit src\/calc\.py/);

    assert.equal(fs.readFileSync(path.join(root, "src/calc.py"), "utf8"), "def add(a, b):\n    return a + b\n");
    const calls = updatesOf(editor, "tool_call");
    assert.deepEqual(
      calls.map((c) => [c.kind, c.status]),
      [
        ["edit", "failed"],
        ["edit", "in_progress"],
        ["think", "in_progress"],
      ],
    );
    assert.deepEqual(calls[1].locations, [{ path: path.join(root, "src/calc.py") }]);
    const diff = updatesOf(editor, "tool_call_update")
      .flatMap((u) => u.content ?? [])
      .find((c: { type: string }) => c.type === "diff");
    assert.deepEqual(diff, {
      type: "diff",
      path: path.join(root, "src/calc.py"),
      oldText: CALC,
      newText: "def add(a, b):\n    return a + b\n",
    });
    assert.deepEqual(
      editor.writes.map((w) => [w.path, w.content]),
      [[path.join(root, "src/calc.py"), "def add(a, b):\n    return a + b\n"]],
    );
    assert.deepEqual(updatesOf(editor, "plan").at(-1)?.entries, [
      { content: "Fix add", priority: "medium", status: "completed" },
      { content: "Run the tests", priority: "medium", status: "pending" },
    ]);
    const text = updatesOf(editor, "agent_message_chunk")
      .map((u) => u.content.text)
      .join("");
    assert.equal(text, "Fixed add in src/calc.py.");
    assert.ok(updatesOf(editor, "available_commands_update").length >= 0);
  });
});

test("the editor's unsaved buffer is what rt reads and edits; the result is saved and sent back to the editor", async () => {
  const root = tempTree({ "src/calc.py": CALC });
  const file = path.join(root, "src/calc.py");
  const unsaved = "def add(a, b):\n    # checked\n    return a - b\n";
  ollama.server.script(
    reply.toolCall("read", { path: "src/calc.py" }),
    reply.toolCall("edit", { path: "src/calc.py", old_string: "return a - b", new_string: "return a + b" }),
    reply.text("done"),
  );
  await withEditor(root, async (ctx, editor) => {
    editor.buffers.set(file, unsaved);
    const { sessionId } = await ctx.request("session/new", { cwd: root, mcpServers: [] });
    await ctx.request("session/set_mode", { sessionId, modeId: "auto-edit" });
    assert.equal(
      (await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "fix add" }] })).stopReason,
      "end_turn",
      editor.stderr(),
    );
    assert.ok(editor.reads.includes(file));
    assert.match(
      JSON.stringify(ollama.server.completions[1].body.messages),
      /# checked/,
      "the model read the editor's text",
    );
    const expected = unsaved.replace("a - b", "a + b");
    assert.equal(fs.readFileSync(file, "utf8"), expected, "the edit was made to the editor's text");
    assert.deepEqual(
      editor.writes.map((w) => w.content),
      [expected],
    );
  });
});

test("session/set_mode to plan: the edit is refused, the file unchanged; the mode change is announced", async () => {
  const root = tempTree({ "src/calc.py": CALC });
  ollama.server.script(
    reply.toolCall("edit", { path: "src/calc.py", old_string: "return a - b", new_string: "return a + b" }),
    reply.text("I would change line 2."),
  );
  await withEditor(root, async (ctx, editor) => {
    const { sessionId } = await ctx.request("session/new", { cwd: root, mcpServers: [] });
    await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
    assert.deepEqual(
      updatesOf(editor, "current_mode_update").map((u) => u.currentModeId),
      ["plan"],
    );
    const done = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "fix add" }] });
    assert.equal(done.stopReason, "end_turn");
    assert.equal(fs.readFileSync(path.join(root, "src/calc.py"), "utf8"), CALC);
    assert.equal(editor.permissions.length, 0);
    // Plan mode offers no editing tool at all.
    const offered = ollama.server.completions[0].body.tools.map((t: { function: { name: string } }) => t.function.name);
    assert.ok(!offered.includes("edit") && offered.includes("read"), offered.join(","));
    await assert.rejects(ctx.request("session/set_mode", { sessionId, modeId: "yolo" }), /unknown mode/);
  });
});

test("session/cancel stops a running turn: stop reason cancelled", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  ollama.server.script(
    reply.text(
      Array.from({ length: 200 }, (_, i) => `word${i} `),
      { chunkDelayMs: 25 },
    ),
  );
  await withEditor(root, async (ctx, editor) => {
    const { sessionId } = await ctx.request("session/new", { cwd: root, mcpServers: [] });
    const running = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }] });
    while (updatesOf(editor, "agent_message_chunk").length < 3) await new Promise((r) => setTimeout(r, 10));
    await ctx.notify("session/cancel", { sessionId });
    assert.equal((await running).stopReason, "cancelled");
  });
});

test("session/load replays a saved session: the prompt, the tool call and its result, the answer", async () => {
  const root = tempTree({ "notes.txt": "hello\n" });
  ollama.server.script(reply.toolCall("read", { path: "notes.txt" }), reply.text("It says hello."));
  const sessionId = await withEditor(root, async (ctx) => {
    const { sessionId } = await ctx.request("session/new", { cwd: root, mcpServers: [] });
    assert.equal(
      (await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "what is in notes.txt?" }] }))
        .stopReason,
      "end_turn",
    );
    return sessionId;
  });
  await withEditor(root, async (ctx, editor) => {
    await ctx.request("session/load", { sessionId, cwd: root, mcpServers: [] });
    const kinds = editor.updates.map((n) => n.update.sessionUpdate).filter((k) => k !== "available_commands_update");
    assert.deepEqual(kinds, ["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]);
    assert.equal((editor.updates[0].update as { content: { text: string } }).content.text, "what is in notes.txt?");
    await assert.rejects(
      ctx.request("session/load", { sessionId: "no-such-session", cwd: root, mcpServers: [] }),
      /not found/i,
    );
  });
});

test("malformed client messages get JSON-RPC errors and write nothing", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  const before = treeHash(root, []);
  const child = startRt(root);
  const lines: Array<Record<string, any>> = [];
  let buf = "";
  child.stdout.on("data", (d) => {
    buf += d;
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      lines.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  });
  const send = (s: string) => child.stdin.write(`${s}\n`);
  const answer = async (id: number) => {
    for (let i = 0; i < 500 && !lines.some((l) => l.id === id); i++) await new Promise((r) => setTimeout(r, 10));
    return lines.find((l) => l.id === id)!;
  };
  send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }));
  assert.equal((await answer(1)).result.protocolVersion, 1);
  send("{not json");
  send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { mcpServers: [] } }));
  send(
    JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: "relative/dir", mcpServers: [] } }),
  );
  send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "session/prompt", params: { sessionId: "nope", prompt: [] } }));
  send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "no/such/method", params: {} }));
  assert.equal((await answer(2)).error.code, -32602);
  assert.match((await answer(3)).error.message + JSON.stringify((await answer(3)).error.data), /absolute path/);
  assert.ok((await answer(4)).error, "an unknown session is an error");
  assert.equal((await answer(5)).error.code, -32601);
  assert.ok(
    lines.some((l) => l.error?.code === -32700),
    "the unparsable line is answered with a parse error",
  );
  child.stdin.end();
  await new Promise((r) => child.once("exit", r));
  assert.equal(treeHash(root, []), before, "nothing was written");
});

test("the event mapping: kinds, locations inside the root only, stop reasons", () => {
  assert.equal(toolKind("bash"), "execute");
  assert.equal(toolKind("grep"), "search");
  assert.equal(toolKind("web_fetch"), "fetch");
  assert.equal(toolKind("something_new"), "other");
  assert.deepEqual(toolLocations({ path: "src/a.ts:12" }, "/r"), [{ path: "/r/src/a.ts", line: 12 }]);
  assert.deepEqual(toolLocations({ path: "../outside.ts" }, "/r"), []);
  assert.deepEqual(toolLocations({ path: "/etc/passwd" }, "/r"), []);
  assert.equal(stopReasonOf({ type: "error", kind: "max_turns", message: "", session_id: "s" }), "max_turn_requests");
  assert.equal(stopReasonOf({ type: "error", kind: "unreachable", message: "", session_id: "s" }), undefined);
  const sub = eventUpdates({ type: "text", delta: "hi", parent_tool_use_id: "t1" }, "/r");
  assert.deepEqual(sub, [
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" }, _meta: { parentToolCallId: "t1" } },
  ]);
});

test("an editor that offers terminals runs rt's bash commands in them, shown inside the call; never a sandboxed one", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const command = "echo from-terminal; echo to-stderr >&2; exit 3";
  ollama.server.script(reply.toolCall("bash", { command }), reply.text("It exited with 3."));
  await withEditor(
    root,
    async (ctx, editor) => {
      const { sessionId } = await ctx.request("session/new", { cwd: root, mcpServers: [] });
      await ctx.request("session/set_mode", { sessionId, modeId: "auto" });
      const done = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] });
      assert.equal(done.stopReason, "end_turn", editor.stderr());
      assert.equal(editor.terminals.length, 1);
      const t = editor.terminals[0];
      assert.equal(t.create.command, "bash");
      assert.deepEqual(t.create.args, ["-c", command]);
      assert.equal(t.create.cwd, root);
      assert.ok(t.released, "the terminal is released");
      // The call shows the terminal while it runs and beside its result.
      const calls = updatesOf(editor, "tool_call_update").filter((u) =>
        (u.content ?? []).some((c: { type: string; terminalId?: string }) => c.terminalId === "term-0"),
      );
      assert.ok(calls.length >= 2, JSON.stringify(editor.updates));
      const last = calls[calls.length - 1];
      assert.equal(last.status, "failed");
      // What the model was told: the exit code and both streams, from the terminal.
      const toolMessage = JSON.stringify(ollama.server.requests.at(-1)?.body);
      assert.match(toolMessage, /exit code 3/);
      assert.match(toolMessage, /from-terminal/);
      assert.match(toolMessage, /to-stderr/);
      assert.match(toolMessage, /in the editor's terminal/);
    },
    { terminal: true },
  );
  // In safe-read-only the command stays in rt's sandbox: no terminal is asked for.
  ollama.server.script(reply.toolCall("bash", { command: "echo inside" }), reply.text("done"));
  await withEditor(
    root,
    async (ctx, editor) => {
      const { sessionId } = await ctx.request("session/new", { cwd: root, mcpServers: [] });
      const done = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] });
      assert.equal(done.stopReason, "end_turn", editor.stderr());
      assert.equal(editor.terminals.length, 0);
      assert.match(JSON.stringify(ollama.server.requests.at(-1)?.body), /inside/);
    },
    { terminal: true, args: ["--profile", "safe-read-only"] },
  );
});

test("the model menu offers the session's model, the configured one and the local models downloaded", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const models = tempTree({ "qwen3-4b.gguf": "", "half.gguf.part": "", "notes.txt": "" }, "rt-models-");
  const configFile = path.join(ollama.configHome, "rt", "config.json");
  fs.mkdirSync(path.dirname(configFile), { recursive: true });
  fs.writeFileSync(configFile, JSON.stringify({ model: "anthropic/claude-sonnet-4-5" }));
  try {
    await withEditor(
      root,
      async (ctx) => {
        const created = await ctx.request("session/new", { cwd: root, mcpServers: [] });
        const menu = created.configOptions?.[0] as { currentValue: string; options: Array<{ value: string }> };
        assert.equal(menu.currentValue, "ollama/test-model");
        assert.deepEqual(
          menu.options.map((o) => o.value),
          ["ollama/test-model", "anthropic/claude-sonnet-4-5", "local/qwen3-4b"],
        );
        const set = await ctx.request("session/set_config_option", {
          sessionId: created.sessionId,
          configId: "model",
          value: "ollama/test-model",
        });
        assert.equal((set.configOptions[0] as { currentValue: string }).currentValue, "ollama/test-model");
      },
      { env: { RT_MODELS_DIR: models } },
    );
  } finally {
    fs.rmSync(configFile, { force: true });
  }
});
