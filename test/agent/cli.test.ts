// `rt run`, `rt -p`, `rt sessions`, `rt export` as a user runs them: the built
// CLI in a child process, the model played by the scripted server (reached as
// the default provider, Ollama, through OLLAMA_HOST). Each claim keeps a round
// trip through the executable; the runs that set a scene or check a second
// case run the CLI's own `main` in one long-lived process (test/rtMain.ts), which
// spares a Node start per run.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import net from "node:net";
import { spawn } from "node:child_process";
import { reply } from "../llm-server.ts";
import { tempTree, rt, CLI } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";
import { requestText, scriptedOllama } from "./harness.ts";

const ollama = scriptedOllama();
const env = (extra: Record<string, string> = {}) => ollama.env(extra);

const MODEL = ["--model", "ollama/test-model"];
const CALC = "def add(a, b):\n    return a - b\n";

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

function sessionFiles(root: string): string[] {
  const dir = path.join(root, ".rt", "sessions");
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl")) : [];
}

test("rt run: a multi-step task edits the file, prints the final answer, exits 0", async () => {
  const root = tempTree({ "src/calc.py": CALC });
  ollama.server.script(
    reply.toolCall("grep", { pattern: "return a - b", path: "src" }),
    reply.toolCall("edit", { path: "src/calc.py", old_string: "return a - b", new_string: "return a + b" }),
    reply.text("Fixed src/calc.py:2."),
  );
  const r = await rt(["run", ...MODEL, "--approval", "auto", "fix add"], { cwd: root, env: env() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Fixed src/calc.py:2.\n");
  assert.equal(fs.readFileSync(path.join(root, "src/calc.py"), "utf8"), "def add(a, b):\n    return a + b\n");
  // Ollama through its native API, with the window rt budgets for (the model's 32768) as num_ctx.
  assert.equal(ollama.server.completions[0].path, "/api/chat");
  for (const c of ollama.server.completions) assert.equal(c.body.options.num_ctx, 32768);
  assert.equal(sessionFiles(root).length, 1);
});

test("rt -p with the default model: Ollama's first model is used; --output-format json", async () => {
  const root = tempTree({});
  ollama.server.script(reply.text("Hello there.", { usage: { input: 120, output: 3 } }));
  const r = await rt(["-p", "say hello", "--output-format", "json"], { cwd: root, env: env() });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.type, "result");
  assert.equal(out.is_error, false);
  assert.equal(out.result, "Hello there.");
  assert.equal(out.model, "ollama/test-model");
  assert.equal(out.usage.input_tokens, 120);
  assert.equal(out.usage.output_tokens, 3);
  assert.equal(sessionFiles(root)[0], `${out.session_id}.jsonl`);
  assert.equal(ollama.server.completions[0].body.model, "test-model");
});

test("--output-format stream-json prints every event as a JSON line", async () => {
  const root = tempTree({ "a.txt": "hi\n" });
  ollama.server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("It says hi."));
  const r = await rt(["run", ...MODEL, "--output-format", "stream-json", "read a.txt"], { cwd: root, env: env() });
  assert.equal(r.code, 0, r.stderr);
  const events = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const types = events.map((e) => e.type);
  assert.deepEqual(
    types.filter((t) => t !== "text"),
    ["model_turn_end", "tool_start", "tool_end", "model_turn_end", "turn_complete"],
  );
  assert.deepEqual(
    events.filter((e) => e.type === "model_turn_end").map((e) => [e.finish_reason, e.tool_calls]),
    [
      ["tool_calls", 1],
      ["stop", 0],
    ],
  );
  assert.equal(events.at(-1).finish_reason, "stop");
  assert.equal(
    events
      .filter((e) => e.type === "text")
      .map((e) => e.delta)
      .join(""),
    "It says hi.",
  );
  assert.match(events.find((e) => e.type === "tool_end").output, /1: hi/);
});

test("exit 1 when the turn ends in an error (--max-turns)", async () => {
  const root = tempTree({ "a.txt": "hi\n" });
  ollama.server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("late"));
  const r = await rt(["run", ...MODEL, "--max-turns", "1", "read a.txt"], { cwd: root, env: env() });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /max_turns: stopped after 1 model turns/);
  assert.equal(r.stdout, "");
  const zero = await rtMain(["run", ...MODEL, "--max-turns", "0", "read a.txt"], { cwd: root, env: env() });
  assert.equal(zero.code, 2, "no model turn at all is a usage error");
  assert.match(zero.stderr, /--max-turns must be at least 1, not 0/);
});

test("exit 2 with the provider's message when the default Ollama is not running (and a key is set)", async () => {
  const root = tempTree({});
  const port = await closedPort();
  // With a key set, rt does not offer its local model (local-consent.test.ts covers the case without one).
  const r = await rt(["run", "hello"], {
    cwd: root,
    env: env({ OLLAMA_HOST: `127.0.0.1:${port}`, ANTHROPIC_API_KEY: "sk-ant-unused" }),
  });
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`cannot reach a model\\. Tried Ollama at http://127\\.0\\.0\\.1:${port}`));
  assert.match(r.stderr, /ollama pull qwen2\.5-coder:7b/);
  assert.match(r.stderr, /--model anthropic\/claude-sonnet-4-5/);
});

test("usage errors exit 2: bad --approval, bad --output-format, no prompt, --continue with no session", async () => {
  const root = tempTree({});
  for (const [i, args] of [
    ["run", "--approval", "sometimes", "x"],
    ["run", "--output-format", "xml", "x"],
    ["run"],
    ["run", "--continue", "x"],
  ].entries()) {
    const r = await (i === 0 ? rt : rtMain)([...args, ...MODEL], { cwd: root, env: env() });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
  }
});

test("text protocol through the CLI: the model's bash blocks run the rt that runs them", async () => {
  const root = tempTree({ "src/calc.py": CALC });
  ollama.server.script(
    reply.text(
      "```bash\nrt edit src/calc.py 2 2 <<'EOF'\n    return a + b\nEOF\ngit --version >/dev/null; rt open src/calc.py\n```",
    ),
    reply.text("Done."),
  );
  const cache = tempTree();
  const r = await rt(["run", ...MODEL, "--protocol", "text", "--approval", "auto", "fix add"], {
    cwd: root,
    env: { ...env(), XDG_CACHE_HOME: cache },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.readFileSync(path.join(root, "src/calc.py"), "utf8"), "def add(a, b):\n    return a + b\n");
  assert.match(requestText(ollama.server.completions[1].body), /2: {5}return a \+ b/);
  // The shim points at this very CLI, from a private directory of the user's, never the workspace's .rt/bin.
  assert.equal(fs.existsSync(path.join(root, ".rt", "bin")), false);
  const [tag] = fs.readdirSync(path.join(cache, "rt", "bin"));
  assert.ok(fs.readFileSync(path.join(cache, "rt", "bin", tag, "rt"), "utf8").includes(CLI));
});

test("SIGKILL during a turn, then --continue: the session keeps the prompt and the streamed part", async () => {
  const root = tempTree({});
  ollama.server.script({ text: "Part one of the answer, then more words that never come", hangAfter: 6 });
  const child = spawn(
    process.execPath,
    [CLI, "run", ...MODEL, "--output-format", "stream-json", "tell me a long story"],
    {
      cwd: root,
      env: { ...process.env, ...env(), RT_ROOT: undefined } as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (c) => {
      out += c;
      if ((out.match(/"type":"text"/g) ?? []).length >= 3) resolve();
    });
    child.on("exit", () => reject(new Error(`rt exited early: ${out}`)));
  });
  child.kill("SIGKILL");
  await new Promise((r) => child.on("close", r));
  const streamed = out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "text")
    .map((e) => e.delta)
    .join("");
  assert.ok(streamed.length > 0);

  ollama.server.script(reply.text("Continuing the story."));
  const r = await rtMain(["run", ...MODEL, "--continue", "go on"], { cwd: root, env: env() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Continuing the story.\n");
  const msgs = ollama.server.completions[1].body.messages as Array<{ role: string; content: string }>;
  assert.deepEqual(
    msgs.map((m) => m.role),
    ["system", "user", "assistant", "user"],
  );
  assert.equal(msgs[1].content, "tell me a long story");
  assert.ok(msgs[2].content.startsWith(streamed), `${msgs[2].content} does not start with ${streamed}`);
  assert.match(msgs[2].content, /interrupted/);
  assert.equal(msgs[3].content, "go on");
  assert.equal(sessionFiles(root).length, 1, "continued the same session");
});

test("SIGKILL while a tool runs, then --continue: the call gets an 'interrupted' result", async () => {
  const root = tempTree({});
  ollama.server.script(reply.toolCall("bash", { command: "echo started > started.txt; sleep 30" }));
  const child = spawn(process.execPath, [CLI, "run", ...MODEL, "--approval", "auto", "run it"], {
    cwd: root,
    env: { ...process.env, ...env(), RT_ROOT: undefined } as NodeJS.ProcessEnv,
    stdio: "ignore",
  });
  const started = path.join(root, "started.txt");
  // Until the command has started (a bound for a loaded machine, not a pause: the loop ends when it has).
  let exited = false;
  child.on("exit", () => (exited = true));
  for (let i = 0; i < 2400 && !exited && !fs.existsSync(started); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(fs.existsSync(started), "the command started");
  child.kill("SIGKILL");
  await new Promise((r) => child.on("close", r));

  ollama.server.script(reply.text("It was interrupted; not retrying."));
  const r = await rtMain(["run", ...MODEL, "--continue", "what happened?"], { cwd: root, env: env() });
  assert.equal(r.code, 0, r.stderr);
  const msgs = ollama.server.completions[1].body.messages as Array<{
    role: string;
    content: string;
    tool_call_id?: string;
  }>;
  const tool = msgs.find((m) => m.role === "tool");
  assert.ok(tool, "the dangling call got a result");
  assert.match(tool!.content, /interrupted: rt stopped before this call finished/);
});

test("auto-compaction at 80% of the window; --continue resumes from the summary", async () => {
  const root = tempTree({ ".rt/config.json": JSON.stringify({ agent: { context_window: 4000 } }) });
  const bigPrompt = `FIRST-PROMPT ${"lorem ipsum dolor sit amet ".repeat(450)}`; // ~3000 tokens
  ollama.server.script(reply.text("FIRST-ANSWER"));
  const r1 = await rtMain(["run", ...MODEL, bigPrompt], { cwd: root, env: env() });
  assert.equal(r1.code, 0, r1.stderr);

  // The next prompt finds the context over 80% of 4000 tokens: compaction first.
  ollama.server.reset();
  ollama.server.script(
    reply.text("## Goal\nSUMMARY-OF-FIRST\n## Decisions\n-\n## Files touched\n-\n## Open work\n-"),
    reply.text("SECOND-ANSWER"),
  );
  const r2 = await rt(["run", ...MODEL, "--continue", "--output-format", "stream-json", "second prompt"], {
    cwd: root,
    env: env(),
  });
  assert.equal(r2.code, 0, r2.stderr);
  const events = r2.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const start = events.find((e) => e.type === "compact_start");
  const end = events.find((e) => e.type === "compact_end");
  assert.equal(start?.reason, "auto");
  assert.equal(end?.summarized, true);
  assert.ok(end.tokens_after < end.tokens_before);
  const [summaryReq, secondReq] = ollama.server.completions;
  assert.match(summaryReq.body.messages[0].content, /You summarize the earlier part of a coding session/);
  assert.match(
    summaryReq.body.messages[1].content,
    /FIRST-PROMPT[\s\S]*## Goal[\s\S]*## Decisions[\s\S]*## Files touched[\s\S]*## Open work/,
  );
  assert.equal(summaryReq.body.tools, undefined);
  // The summary request too runs with the configured window as Ollama's num_ctx.
  assert.deepEqual([summaryReq.body.options.num_ctx, secondReq.body.options.num_ctx], [4000, 4000]);
  const second = requestText(secondReq.body);
  assert.match(second, /SUMMARY-OF-FIRST/);
  assert.doesNotMatch(second, /FIRST-PROMPT/);
  assert.match(second, /second prompt/);

  // Resume after compaction: the context is rebuilt from the log, summary and all.
  ollama.server.reset();
  ollama.server.script(reply.text("THIRD-ANSWER"));
  const r3 = await rtMain(["run", ...MODEL, "--continue", "third prompt"], { cwd: root, env: env() });
  assert.equal(r3.code, 0, r3.stderr);
  const third = requestText(ollama.server.completions[0].body);
  assert.match(third, /SUMMARY-OF-FIRST/);
  assert.doesNotMatch(third, /FIRST-PROMPT/);
  assert.match(third, /SECOND-ANSWER[\s\S]*third prompt/);

  // The log keeps everything: the export still has the first prompt.
  const id = sessionFiles(root)[0].replace(/\.jsonl$/, "");
  const ex = await rtMain(["export", id], { cwd: root, env: env() });
  assert.equal(ex.code, 0, ex.stderr);
  assert.match(ex.stdout, /FIRST-PROMPT/);
  assert.match(ex.stdout, /compacted here[\s\S]*SUMMARY-OF-FIRST/);
});

test("rt sessions lists sessions; rt export writes markdown; --resume picks one by id prefix", async () => {
  const root = tempTree({ "a.txt": "hi\n" });
  ollama.server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("It says hi."));
  assert.equal((await rtMain(["run", ...MODEL, "first session prompt"], { cwd: root, env: env() })).code, 0);
  ollama.server.script(reply.text("Second."));
  assert.equal((await rtMain(["run", ...MODEL, "second session prompt"], { cwd: root, env: env() })).code, 0);

  const list = await rt(["sessions"], { cwd: root, env: env() });
  assert.equal(list.code, 0);
  // The list, then (after a blank line) the last session's prompts, numbered for rt rewind --to.
  const [listed, points] = list.stdout.split("\n\n");
  const lines = listed.trim().split("\n");
  assert.equal(lines.length, 2);
  assert.match(points, /second session prompt/);
  assert.match(lines[0], /ollama\/test-model\s+1 prompt, .* tokens\s+second session prompt/);
  assert.match(lines[1], /first session prompt/);
  const json = JSON.parse((await rtMain(["sessions", "--json"], { cwd: root, env: env() })).stdout);
  const first = json.find((s: { firstPrompt: string }) => s.firstPrompt === "first session prompt");

  // The shortest prefix that tells the two sessions apart (both may start in the same second).
  const other = json.find((s: { id: string }) => s.id !== first.id).id as string;
  let n = 1;
  while (other.startsWith(first.id.slice(0, n))) n++;
  const ex = await rt(["export", first.id.slice(0, n)], { cwd: root, env: env() });
  assert.equal(ex.code, 0, ex.stderr);
  assert.match(ex.stdout, new RegExp(`^# rt session ${first.id}`));
  assert.match(ex.stdout, /## User\n\nfirst session prompt/);
  assert.match(ex.stdout, /\*\*Tool call\*\* `read`\n\n```json\n\{\n {2}"path": "a.txt"\n\}\n```/);
  assert.match(ex.stdout, /\*\*Result of\*\* `read`\n\n```text\n\s*1: hi\n```/);
  assert.match(ex.stdout, /## Assistant\n\nIt says hi\./);
  const out = path.join(root, "s.md");
  assert.equal((await rtMain(["export", first.id, "--output", out], { cwd: root, env: env() })).code, 0);
  assert.equal(fs.readFileSync(out, "utf8"), ex.stdout);
  assert.equal((await rtMain(["export", "nope"], { cwd: root, env: env() })).code, 2);

  ollama.server.reset();
  ollama.server.script(reply.text("Back in the first."));
  const r = await rtMain(["run", ...MODEL, "--resume", first.id, "again"], { cwd: root, env: env() });
  assert.equal(r.code, 0, r.stderr);
  assert.match(requestText(ollama.server.completions[0].body), /first session prompt[\s\S]*It says hi\.[\s\S]*again/);
});
