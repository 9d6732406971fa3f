// `rt chat`, the REPL, driven through piped standard input (and a real
// SIGINT for Ctrl-C); the model is the scripted server, reached as Ollama.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { reply } from "../llm-server.ts";
import { tempTree, rt, CLI } from "../helpers.ts";
import { requestText, scriptedOllama } from "./harness.ts";

const ollama = scriptedOllama();
const env = () => ollama.env();

const MODEL = ["--model", "ollama/test-model"];

/**
 * `rt chat` in a child process with piped input. waitFor(re) resolves once stdout matches;
 * the child is killed when the test ends, passed or failed (a failed wait must not leave
 * a REPL holding the test runner open).
 */
function spawnChat(t: TestContext, root: string) {
  const child = spawn(process.execPath, [CLI, "chat", ...MODEL], {
    cwd: root,
    env: { ...process.env, ...env(), RT_ROOT: undefined } as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  const waitFor = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re}; output: ${out}`)), 10_000);
      const check = () => {
        if (re.test(out)) {
          clearTimeout(timer);
          child.stdout.off("data", check);
          resolve();
        }
      };
      child.stdout.on("data", check);
      check();
    });
  return { child, waitFor, output: () => out, closed: new Promise<number | null>((r) => child.on("close", r)) };
}

test("piped REPL: answers stream, /sessions, /clear (the next request starts afresh), /model, Ctrl-D quits", async () => {
  const root = tempTree({});
  ollama.server.script(reply.text("first answer"), reply.text("second answer"));
  const input = [
    "first question",
    "/sessions",
    "/clear",
    "second question",
    "/model",
    "/model ollama/test-model",
    "/nope",
    "",
  ].join("\n");
  const r = await rt(["chat", ...MODEL], { cwd: root, env: env(), input });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /rt chat · ollama\/test-model · session (\S+)/);
  const id = /session (\S+)/.exec(r.stdout)![1];
  assert.match(r.stdout, /first answer/);
  assert.match(r.stdout, new RegExp(`\\* ${id} .* 1 prompt, .*first question`));
  assert.match(r.stdout, /context cleared/);
  assert.match(r.stdout, /second answer/);
  assert.match(r.stdout, /ollama\/test-model \(protocol: tools\)/);
  assert.match(r.stdout, /\[rt\] model: ollama\/test-model/);
  assert.match(r.stdout, /unknown command \/nope/);
  assert.match(r.stdout, /\[tokens: [\d,]+ in, [\d,]+ out · session: [\d,]+ in/);
  assert.match(r.stdout, new RegExp(`session ${id} saved; rt chat --continue resumes it`));
  const second = requestText(ollama.server.completions[1].body);
  assert.doesNotMatch(second, /first question/);
  assert.match(second, /second question/);
});

test("REPL approvals: y runs the edit, n blocks it and the model is told", async () => {
  const root = tempTree({ "a.txt": "one\n" });
  ollama.server.script(
    reply.toolCall("edit", { path: "a.txt", old_string: "one", new_string: "two" }),
    reply.text("changed"),
    reply.toolCall("edit", { path: "a.txt", old_string: "two", new_string: "three" }),
    reply.text("not changed"),
  );
  const r = await rt(["chat", ...MODEL], { cwd: root, env: env(), input: "make it two\ny\nmake it three\nn\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "two\n");
  assert.equal((r.stdout.match(/rt wants to edit: edit a\.txt/g) ?? []).length, 2);
  assert.match(r.stdout, /Allow\? \[y\]es \/ \[n\]o \(n REASON tells the model why\) \/ \[a\]lways for this session/);
  assert.match(r.stdout, /⊘ blocked: the user denied edit a\.txt/);
  const last = ollama.server.completions[3].body.messages;
  assert.match(last[last.length - 1].content, /^blocked: the user denied/);
});

test("/compact [instructions] replaces the conversation with the model's summary", async () => {
  const root = tempTree({});
  ollama.server.script(reply.text("hi there"), reply.text("SUMMARY-X"), reply.text("after answer"));
  const r = await rt(["chat", ...MODEL], {
    cwd: root,
    env: env(),
    input: "hello SECRET-WORD\n/compact keep the focus on X\nafter\n",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /compacting the context \(manual\)/);
  assert.match(r.stdout, /compacted: .* older history summarized/);
  const [, summaryReq, afterReq] = ollama.server.completions;
  assert.match(summaryReq.body.messages[1].content, /hello SECRET-WORD[\s\S]*keep the focus on X/);
  const after = requestText(afterReq.body);
  assert.match(after, /SUMMARY-X/);
  assert.doesNotMatch(after, /SECRET-WORD/);
});

test("Ctrl-C interrupts the turn in flight; the session goes on", async (t) => {
  const root = tempTree({});
  ollama.server.script({ text: "a slow answer that stops here and hangs", hangAfter: 4 });
  const { child, waitFor, closed } = spawnChat(t, root);
  child.stdin.write("first\n");
  await waitFor(/a slow answer/);
  child.kill("SIGINT");
  await waitFor(/rt: interrupted/);
  ollama.server.script(reply.text("second answer"));
  child.stdin.write("second\n");
  await waitFor(/second answer/);
  child.stdin.end();
  assert.equal(await closed, 0);
  const msgs = ollama.server.completions[1].body.messages as Array<{ role: string; content: string }>;
  assert.deepEqual(
    msgs.map((m) => m.role),
    ["system", "user", "assistant", "user"],
  );
  assert.match(msgs[2].content, /a slow answer[\s\S]*interrupted/);
});

test("Ctrl-C while an approval question waits: the question ends, the call is not run, the turn is interrupted, the REPL goes on", async (t) => {
  const root = tempTree({ "a.txt": "one\n" });
  ollama.server.script(reply.toolCall("edit", { path: "a.txt", old_string: "one", new_string: "two" }));
  const { child, waitFor, output, closed } = spawnChat(t, root);
  child.stdin.write("make it two\n");
  await waitFor(/rt wants to edit: edit a\.txt/);
  child.kill("SIGINT");
  await waitFor(/rt: interrupted/);
  ollama.server.script(reply.text("second answer"));
  child.stdin.write("second\n");
  await waitFor(/second answer/);
  child.stdin.end();
  assert.equal(await closed, 0);
  assert.doesNotMatch(output(), /Please answer y, n or a/);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\n");
  const msgs = ollama.server.completions[1].body.messages as Array<{ role: string; content: string }>;
  const tool = msgs.find((m) => m.role === "tool");
  assert.match(tool!.content, /interrupted/);
  assert.equal(msgs[msgs.length - 1].content, "second");
});

test("an answer cut at the output limit: the partial answer stays, one line says why, the REPL goes on and the model sees it marked", async () => {
  const root = tempTree({});
  ollama.server.script(reply.text("The first half of", { finish: "length" }), reply.text("the second half."));
  const r = await rt(["chat", ...MODEL], { cwd: root, env: env(), input: "explain\ngo on\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /The first half of\nrt: length: the answer was cut off at the model's output limit \(finish reason "length"\)/,
  );
  assert.match(r.stdout, /the second half\./);
  const second = ollama.server.completions[1].body.messages.find((m: { role: string }) => m.role === "assistant");
  assert.match(second.content, /^The first half of\n\n\[rt: this answer was cut off at the output limit \(length\)\]$/);
});

test("piped REPL: `n REASON` denies a call and the model is told why", async () => {
  const root = tempTree({ "a.txt": "one\n" });
  ollama.server.script(
    reply.toolCall("edit", { path: "a.txt", old_string: "one", new_string: "two" }),
    reply.text("ok, leaving it"),
  );
  const r = await rt(["chat", ...MODEL], { cwd: root, env: env(), input: "make it two\nn keep the file as it is\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\n");
  const tool = (ollama.server.completions[1].body.messages as Array<{ role: string; content: string }>).find(
    (m) => m.role === "tool",
  )!;
  assert.match(
    tool.content,
    /the user denied edit a\.txt: it was not run\. The user said why: "keep the file as it is"\./,
  );
});
