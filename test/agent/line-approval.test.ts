// The line faces (rt chat --plain, rt run on a terminal) show an edit's change
// with its approval question, as the full-screen UI does: what is removed (-)
// and what is added (+), before "Allow?".
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { reply } from "../llm-server.ts";
import { rt, tempTree } from "../helpers.ts";
import { scriptedOllama } from "./harness.ts";

const ollama = scriptedOllama();

test("rt chat --plain: an edit's approval shows the change it would make", async () => {
  const root = tempTree({ "calc.py": "def add(a, b):\n    return a - b\n" });
  ollama.server.script(
    reply.toolCall("edit", { path: "calc.py", old_string: "    return a - b", new_string: "    return a + b" }),
    reply.text("fixed"),
  );
  const r = await rt(["chat", "--plain", "--model", "ollama/test-model"], {
    cwd: root,
    env: ollama.env(),
    input: "fix the sign\ny\n",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /rt wants to edit: edit calc\.py\n {2}- {5}return a - b\n {2}\+ {5}return a \+ b\nAllow\?/);
  assert.equal(fs.readFileSync(path.join(root, "calc.py"), "utf8"), "def add(a, b):\n    return a + b\n");
});
