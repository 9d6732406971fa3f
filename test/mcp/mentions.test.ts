// The user's MCP servers in the line REPL (`rt chat`) and `rt run`, as in the
// full-screen UI (all three make a typed line into a prompt with
// src/ui/promptLine.ts): `/mcp__SERVER__PROMPT args` sends the server's prompt,
// `@server:uri` attaches the resource's text. Against the real
// @modelcontextprotocol/server-everything over stdio and the scripted model.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { tempTree, rt } from "../helpers.ts";
import { reply } from "../llm-server.ts";
import { requestText, scriptedOllama } from "../agent/harness.ts";

const ollama = scriptedOllama();
const require = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
const DOC = "demo://resource/static/document/architecture.md";

function everythingConfig(): string {
  const home = tempTree({}, "rt-config-");
  fs.mkdirSync(path.join(home, "rt"), { recursive: true });
  fs.writeFileSync(
    path.join(home, "rt", "mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }),
  );
  return home;
}

test("rt chat: /mcp__everything__args-prompt sends the server's prompt; @everything:URI attaches the resource", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  const env = { ...ollama.env(), XDG_CONFIG_HOME: everythingConfig() };
  ollama.server.script(reply.text("one"), reply.text("two"));
  const r = await rt(["chat", "--model", "ollama/test-model"], {
    cwd: root,
    env,
    input: `/mcp__everything__args-prompt Paris France\nSummarize @everything:${DOC} please\n/mcp__everything__nope\n`,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(ollama.server.completions.length, 2, r.stderr);
  const first = requestText(ollama.server.completions[0].body);
  assert.match(first, /Paris/);
  assert.match(first, /France/);
  const second = requestText(ollama.server.completions[1].body);
  assert.match(
    second,
    new RegExp(`Summarize @everything:${DOC} please\\n\\n<resource server="everything" uri="${DOC}">\\n`),
  );
  assert.match(r.stderr, /no MCP prompt \/mcp__everything__nope; MCP prompts: .*\/mcp__everything__simple-prompt/);
});

test("rt run: @everything:URI attaches the resource; a resource that cannot be read is a warning, the prompt still goes", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  const env = { ...ollama.env(), XDG_CONFIG_HOME: everythingConfig() };
  ollama.server.script(reply.text("ok"));
  const r = await rt(
    ["run", "--model", "ollama/test-model", `Compare @everything:${DOC} with @everything:demo://nope/missing`],
    { cwd: root, env },
  );
  assert.equal(r.code, 0, r.stderr);
  const sent = requestText(ollama.server.completions[0].body);
  assert.match(sent, new RegExp(`<resource server="everything" uri="${DOC}">`));
  assert.doesNotMatch(sent, /<resource server="everything" uri="demo:\/\/nope/);
  assert.match(r.stderr, /warning: @everything:demo:\/\/nope\/missing was not attached/);
});
