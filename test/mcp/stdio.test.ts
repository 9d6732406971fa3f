// `rt mcp` over stdio, driven by the SDK's client: the tool list, reads,
// searches, edits with line IDs, refusals, and malformed input.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { McpError, ErrorCode, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { tempTree, CLI } from "../helpers.js";
import { TOOLS, jsonSchemaOf } from "../../src/tools/registry.js";
import { SEED_COMPAT_TOOLS } from "../../src/faces/mcp/toolList.js";
import { call, connectStdio, rtEnv, type StdioSession } from "./helpers.js";

const PY = "def total(items):\n    s = 0\n    for x in items:\n        s += x\n    return s\n";

let root: string;
let s: StdioSession;

/** A JSON schema without zod's ±(2^53-1) integer bounds, which tools/list leaves out. */
function withoutSafeIntegerBounds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutSafeIntegerBounds);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(
        ([k, x]) =>
          !((k === "maximum" && x === Number.MAX_SAFE_INTEGER) || (k === "minimum" && x === Number.MIN_SAFE_INTEGER)),
      )
      .map(([k, x]) => [k, withoutSafeIntegerBounds(x)]),
  );
}

before(async () => {
  root = tempTree({ "calc.py": PY, "notes.md": "# Notes\nneedle here\n", "src/app.ts": "export const needle = 1;\n" });
  s = await connectStdio(root);
});
after(async () => {
  await s.close();
});

test("tools/list (lean, the default): every registered tool under its canonical name, with its JSON schema and description, but the seeds' compatibility tools, and SQL with no database", async () => {
  const { tools } = await s.client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const tool of TOOLS) {
    const listed = byName.get(tool.name);
    // web_search needs a configured backend (none here), like the SQL tools a database.
    if (SEED_COMPAT_TOOLS.includes(tool.name) || tool.name.startsWith("sql_") || tool.name === "web_search") {
      assert.equal(listed, undefined, `${tool.name} is not listed by default`);
      continue;
    }
    assert.ok(listed, `${tool.name} is listed`);
    assert.deepEqual(listed.inputSchema, withoutSafeIntegerBounds(jsonSchemaOf(tool)), `${tool.name} schema`);
    assert.equal(listed.description, tool.description);
  }
  // No alias is listed; each name once.
  assert.equal(new Set(tools.map((t) => t.name)).size, tools.length);
  for (const alias of ["glob", "MultiEdit", "open_file_chunk", "search_dir", "find_file", "search_file", "scroll_file"])
    assert.ok(!byName.has(alias), alias);
});

test("tools/list with --seed-names: seed 000's names too, backed by the same tool and schema", async () => {
  const seeded = await connectStdio(root, [], {}, ["--seed-names"]);
  try {
    const { tools } = await seeded.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const backing: Record<string, string> = {
      open_file_chunk: "open",
      scroll_file: "scroll",
      find_file: "find",
      search_dir: "grep",
      search_file: "grep_file",
      edit_range: "edit_range",
      insert_at: "insert_at",
    };
    for (const [seed, canonical] of Object.entries(backing)) {
      const listed = byName.get(seed);
      assert.ok(listed, `${seed} is listed`);
      assert.deepEqual(listed.inputSchema, byName.get(canonical)!.inputSchema, `${seed} has ${canonical}'s schema`);
      assert.deepEqual(listed.annotations, byName.get(canonical)!.annotations);
      if (seed !== canonical)
        assert.match(
          listed.description!,
          new RegExp(`^Another name for ${canonical} \\(same tool, same arguments\\)\\.\\n`),
          seed,
        );
    }
    assert.ok(byName.has("edit_file"));
    assert.equal(new Set(tools.map((t) => t.name)).size, tools.length);
    assert.ok(!byName.has("glob") && !byName.has("MultiEdit"));
  } finally {
    await seeded.close();
  }
});

test("tools/list: annotations follow the tools' flags, leaving out MCP's defaults", async () => {
  const { tools } = await s.client.listTools();
  const a = (name: string) => ({ ...tools.find((t) => t.name === name)!.annotations });
  assert.deepEqual(a("read"), { readOnlyHint: true, idempotentHint: true });
  assert.deepEqual(a("open"), { readOnlyHint: true, idempotentHint: true });
  assert.deepEqual(
    a("edit_lines"),
    {},
    "a write that may destroy: MCP's defaults (readOnlyHint false, destructiveHint true)",
  );
  assert.deepEqual(a("write"), { idempotentHint: true });
  // Additive, never overwriting: not destructive, though not read-only.
  assert.deepEqual(a("write_output"), { destructiveHint: false });
  assert.deepEqual(a("bash_output"), { destructiveHint: false });
  assert.deepEqual(a("kill_shell"), {});
  for (const t of TOOLS) {
    const listed = tools.find((x) => x.name === t.name);
    if (!listed) continue;
    const ann = listed.annotations!;
    assert.equal(ann.readOnlyHint ?? false, t.readOnly, t.name);
    if (!t.readOnly) assert.equal(ann.destructiveHint ?? true, t.destructive ?? !t.readOnly, t.name);
    assert.equal(ann.idempotentHint ?? false, t.idempotent === true, t.name);
  }
});

test("read and grep return the CLI's text", async () => {
  const r = await call(s.client, "read", { path: "calc.py" });
  assert.equal(r.isError, false);
  assert.match(r.text, /^ {3}1: def total\(items\):\n {3}2: {5}s = 0/);
  const g = await call(s.client, "grep", { pattern: "needle" });
  assert.equal(g.isError, false);
  assert.match(g.text, /notes\.md:2: needle here/);
  assert.match(g.text, /src\/app\.ts:1: export const needle = 1;/);
  const seed = await call(s.client, "open_file_chunk", { path: "calc.py:3" });
  assert.match(seed.text, /^3: {5}for x in items:$/m);
  const alias = await call(s.client, "glob", { pattern: "**/*.ts" }); // an unlisted alias still works
  assert.match(alias.text, /src\/app\.ts/);
});

test("edits with line IDs across calls: an insertion above moves the line, its N:ID reference follows it", async () => {
  const file = path.join(root, "ids.py");
  fs.writeFileSync(file, PY);
  const r = await call(s.client, "read", { path: "ids.py", ids: true });
  const id = /^ {3}4: \[LID:(\w+)\] +s \+= x$/m.exec(r.text)?.[1];
  const returnId = /^ {3}5: \[LID:(\w+)\] +return s$/m.exec(r.text)?.[1];
  assert.ok(id && returnId, `lines 4 and 5 have IDs in:\n${r.text}`);
  const ins = await call(s.client, "insert_at", { path: "ids.py", line: 1, new_text: "import math\n" });
  assert.equal(ins.isError, false, ins.text);
  // Line 4 is now line 5; the reference "4:ID" still names it.
  const ed = await call(s.client, "edit_lines", {
    path: "ids.py",
    command: "replace",
    start_line: `4:${id}`,
    new_content: "        s += x * 2",
  });
  assert.equal(ed.isError, false, ed.text);
  assert.equal(
    fs.readFileSync(file, "utf8"),
    "import math\ndef total(items):\n    s = 0\n    for x in items:\n        s += x * 2\n    return s\n",
  );
  // A third call, with an ID from the first read: two edits later, it still names "return s" (now line 6).
  const again = await call(s.client, "edit_lines", {
    path: "ids.py",
    changes: [{ before_line_id: returnId, new_content: "    s = math.floor(s)" }],
  });
  assert.equal(again.isError, false, again.text);
  assert.equal(
    fs.readFileSync(file, "utf8"),
    "import math\ndef total(items):\n    s = 0\n    for x in items:\n        s += x * 2\n    s = math.floor(s)\n    return s\n",
  );
});

test("an edit that adds a syntax error is a tool error and leaves the file unchanged", async () => {
  const before = fs.readFileSync(path.join(root, "calc.py"));
  const r = await call(s.client, "edit_range", {
    path: "calc.py",
    start_line: 2,
    end_line: 2,
    new_text: "    s = (\n",
  });
  assert.equal(r.isError, true);
  assert.match(r.text, /syntax error/);
  assert.match(r.text, /force: true/, "the message says what to do");
  assert.deepEqual(fs.readFileSync(path.join(root, "calc.py")), before);
  assert.equal((r.result._meta?.["rt/result"] as Record<string, unknown>).validation_failed, true);
});

test("a path outside the root is refused as a tool error", async () => {
  for (const p of ["../outside.txt", "/etc/passwd"]) {
    const r = await call(s.client, "read", { path: p });
    assert.equal(r.isError, true, p);
    assert.match(r.text, /outside the workspace root/i, p);
  }
  const w = await call(s.client, "write", { path: "../escape.txt", content: "x" });
  assert.equal(w.isError, true);
  assert.equal(fs.existsSync(path.join(path.dirname(root), "escape.txt")), false);
});

test("arguments that violate the schema are a tool error with the policy's message, not a protocol error", async () => {
  const r = await call(s.client, "read", { path: 42 });
  assert.equal(r.isError, true);
  assert.match(r.text, /^invalid arguments for read: path: .*expected string/);
  assert.match(r.text, /schema: \{/);
  const extra = await call(s.client, "open", { path: "calc.py", bogus: true });
  assert.equal(extra.isError, true);
  assert.match(extra.text, /invalid arguments for open/);
});

test("malformed tools/call requests get JSON-RPC errors and the server keeps serving", async () => {
  await assert.rejects(
    s.client.request({ method: "tools/call", params: { name: 5 } as never }, CallToolResultSchema),
    (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
  );
  await assert.rejects(
    s.client.callTool({ name: "no_such_tool", arguments: {} }),
    (e: unknown) =>
      e instanceof McpError &&
      e.code === ErrorCode.InvalidParams &&
      /unknown tool "no_such_tool"; available tools: read, open/.test(e.message),
  );
  await assert.rejects(
    s.client.request({ method: "tools/nonsense" } as never, CallToolResultSchema),
    (e: unknown) => e instanceof McpError && e.code === ErrorCode.MethodNotFound,
  );
  const r = await call(s.client, "read", { path: "notes.md" });
  assert.equal(r.isError, false);
  assert.match(r.text, /needle here/);
});

/** Raw lines to a fresh `rt mcp`, and the JSON it answers, one object per line. */
async function rawSession(lines: string[], expected: number): Promise<Array<Record<string, any>>> {
  const child = spawn(process.execPath, [CLI, "--root", root, "mcp"], {
    cwd: root,
    env: rtEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out: Array<Record<string, any>> = [];
  let buf = "";
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(out)}`)), 15_000);
    child.stdout.on("data", (c: Buffer) => {
      buf += c.toString();
      let nl: number;
      while ((nl = buf.indexOf("\n")) !== -1) {
        out.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
      if (out.length >= expected) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  for (const l of lines) child.stdin.write(`${l}\n`);
  await done;
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.equal(code, 0, "rt mcp exits cleanly when stdin ends");
  return out;
}

test("stdio: lines that are not JSON or not JSON-RPC get -32700 / -32600, then requests are still answered", async () => {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
  const out = await rawSession(
    [
      JSON.stringify(init),
      "this is not json",
      JSON.stringify({ hello: "world" }),
      JSON.stringify({ jsonrpc: "2.0", id: 7 }),
      JSON.stringify([{ jsonrpc: "2.0", id: 8, method: "ping" }]),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "read", arguments: { path: "notes.md" } },
      }),
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read", arguments: "notes.md" } }),
    ],
    7,
  );
  const errors = out.filter((m) => m.error);
  assert.deepEqual(
    errors.map((m) => [m.id, m.error.code]),
    [
      [null, -32700],
      [null, -32600],
      [7, -32600],
      [null, -32600],
      [3, -32602],
    ],
  );
  assert.match(
    errors[3].error.message,
    /batches were removed from MCP in 2025-06-18, and this session uses 2025-06-18/,
  );
  assert.match(
    errors[4].error.message,
    /Invalid tools\/call request: .*arguments/s,
    "non-object arguments: Invalid params, not Internal error",
  );
  assert.equal(out.find((m) => m.id === 1)?.result?.serverInfo?.name, "rt");
  const read = out.find((m) => m.id === 2);
  assert.match(read?.result?.content?.[0]?.text, /needle here/);
});

test("stdio: a line over the size limit is answered with an error, not by closing the connection", async () => {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
  const huge = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", params: { pad: "x".repeat(11 * 1024 * 1024) } });
  const out = await rawSession(
    [JSON.stringify(init), huge, JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" })],
    3,
  );
  assert.equal(out.find((m) => m.error)?.error.code, -32600);
  assert.match(out.find((m) => m.error)?.error.message, /longer than 10485760 bytes/);
  assert.deepEqual(out.find((m) => m.id === 4)?.result, {});
});

test("stdio: requests received before stdin ends are all answered, then rt mcp exits (a cancelled one is not waited for)", async () => {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
  const lines = [
    init,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "read", arguments: { path: "notes.md" } } },
    {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "bash", arguments: { command: "sleep 0.5; echo slept" } },
    },
    { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "bash", arguments: { command: "sleep 30" } } },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } },
  ];
  const child = spawn(process.execPath, [CLI, "--root", root, "mcp"], {
    cwd: root,
    env: rtEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  const started = Date.now();
  // Everything at once, then end of input: what `printf ... | rt mcp` does.
  child.stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.equal(code, 0);
  assert.ok(Date.now() - started < 20_000, "the cancelled call is not waited for");
  const out = stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(out.map((m) => m.id).sort(), [1, 2, 3]);
  assert.match(out.find((m) => m.id === 2)?.result?.content?.[0]?.text, /needle here/);
  assert.match(out.find((m) => m.id === 3)?.result?.content?.[0]?.text, /slept/);
});
