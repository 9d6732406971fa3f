// Custom slash command bodies as Claude Code writes them: `!`command`` runs
// before the prompt is sent (behind the command's allowed-tools and the
// approval mode) and its output stands in its place; `@path` attaches a file;
// `rt run /review FILE "two words"` gives $2 the two words. Driven through the
// built CLI against the scripted model server, in a real git repository.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { reply } from "../llm-server.ts";
import { rt, tempTree } from "../helpers.ts";
import { requestText, scriptedOllama } from "../agent/harness.ts";
import { bashPermitted } from "../../src/agent/commandBody.ts";
import type { CustomCommand } from "../../src/extensions/slashCommands.ts";

const ollama = scriptedOllama();
const MODEL = ["--model", "ollama/test-model"];

function repo(files: Record<string, string>): string {
  const root = tempTree({ "src/parser.py": "def parse(text):\n    return text.split()\n", ...files });
  execFileSync("git", ["init", "-q"], { cwd: root });
  return root;
}

test('rt run /review src/parser.py "error handling": $1 and $2 are the shell\'s words', async () => {
  const root = repo({ ".rt/commands/review.md": "Review $1 for bugs, focusing on $2.\n" });
  const env = ollama.env({ HOME: ollama.configHome });
  assert.equal((await rt(["trust"], { cwd: root, env })).code, 0);
  ollama.server.script(reply.text("ok"));
  const r = await rt(["run", ...MODEL, "/review", "src/parser.py", "error handling"], { cwd: root, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    requestText(ollama.server.completions[0].body),
    /Review src\/parser\.py for bugs, focusing on error handling\./,
  );
});

test("!`git status` runs when allowed-tools permits it; @path attaches the file", async () => {
  const root = repo({
    ".rt/commands/fix.md":
      "---\nallowed-tools: Bash(git status:*), Read\n---\nChanged files:\n!`git status --short`\nFix @src/parser.py for $1.\n",
  });
  fs.writeFileSync(path.join(root, "new.txt"), "x\n");
  const env = ollama.env({ HOME: ollama.configHome });
  assert.equal((await rt(["trust"], { cwd: root, env })).code, 0);
  ollama.server.script(reply.text("done"));
  const r = await rt(["run", ...MODEL, "--approval", "ask", "/fix", "unicode"], { cwd: root, env });
  assert.equal(r.code, 0, r.stderr);
  const sent = requestText(ollama.server.completions[0].body);
  assert.match(sent, /Changed files:\n[^\n]*\?\? new\.txt/);
  assert.doesNotMatch(sent, /!`git status/);
  assert.match(sent, /Fix src\/parser\.py for unicode\./);
  assert.match(sent, /<file path="src\/parser\.py">\ndef parse\(text\):\n {4}return text\.split\(\)\n<\/file>/);
});

test("a ! command allowed-tools does not permit is refused without a terminal, and nothing is sent", async () => {
  const root = repo({
    ".rt/commands/sneaky.md": "---\nallowed-tools: Bash(git status:*)\n---\n!`git status; touch pwned`\nGo.\n",
    ".rt/commands/plain.md": "---\nallowed-tools: Read\n---\n!`touch made`\nGo.\n",
  });
  const env = ollama.env({ HOME: ollama.configHome });
  assert.equal((await rt(["trust"], { cwd: root, env })).code, 0);
  for (const name of ["/sneaky", "/plain"]) {
    const r = await rt(["run", ...MODEL, "--approval", "ask", name], { cwd: root, env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /rt run: \/(sneaky|plain): !`[^`]+` was not run: .*allowed-tools of \/(sneaky|plain) does not permit it/,
    );
  }
  assert.equal(ollama.server.completions.length, 0);
  assert.ok(!fs.existsSync(path.join(root, "pwned")) && !fs.existsSync(path.join(root, "made")));
  // The approval mode decides when allowed-tools does not: --approval auto runs it.
  ollama.server.script(reply.text("ok"));
  const auto = await rt(["run", ...MODEL, "--approval", "auto", "/plain"], { cwd: root, env });
  assert.equal(auto.code, 0, auto.stderr);
  assert.ok(fs.existsSync(path.join(root, "made")));
});

test("allowed-tools patterns: a prefix rule permits that plain command only", () => {
  const cmd = (ignored: string[], allowed: string[] = []) => ({
    allowedTools: allowed,
    command: { ignoredAllowedTools: ignored } as unknown as CustomCommand,
  });
  assert.ok(bashPermitted("git status --short", cmd(["Bash(git status:*)"])));
  assert.ok(bashPermitted("git status", cmd(["Bash(git status:*)"])));
  assert.ok(!bashPermitted("git statusx", cmd(["Bash(git status:*)"])));
  assert.ok(!bashPermitted("git status && rm -rf /", cmd(["Bash(git status:*)"])));
  assert.ok(!bashPermitted("git status $(rm x)", cmd(["Bash(git status:*)"])));
  assert.ok(bashPermitted("git diff", cmd(["Bash(git diff)"])));
  assert.ok(!bashPermitted("git diff HEAD", cmd(["Bash(git diff)"])));
  assert.ok(bashPermitted("anything | at all", cmd([], ["bash"])));
  assert.ok(!bashPermitted("ls", cmd(["Read(src/**)"])));
});
