// Rewind in the full-screen UI, in a real terminal (tmux) against the scripted
// model server: three prompts whose turns change files with `edit` and with
// `bash` (sed -i, a new file, a removed file); Esc twice lists the prompts;
// rewinding code and conversation to prompt 2 gives back the bytes of every
// file as they were just before prompt 2, the conversation keeps prompt 1 and
// its answer (prompt 2's text is offered in the input) and the model's next
// request holds only that; a file changed by hand is named and kept; the
// user's .git is byte-identical throughout.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { reply } from "../llm-server.ts";
import { CLI, git, tempTree } from "../helpers.ts";
import { scriptedOllama } from "../agent/harness.ts";
import { fileHashes } from "../workspace/treeFiles.ts";
import { Tmux } from "./tmux.ts";

const ollama = scriptedOllama();
const statusLine = (s: string) => s.split("\n").find((l) => l.startsWith("ollama/test-model")) ?? "";
const idle = (s: string) => /\/help · Ctrl-C twice quits/.test(statusLine(s));

function gitState(root: string): string {
  const h = crypto.createHash("sha256");
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      h.update(`${path.relative(root, p)}\0${st.mode}\0${st.mtimeMs}\0`);
      if (st.isDirectory()) walk(p);
      else h.update(fs.readFileSync(p));
    }
  };
  walk(path.join(root, ".git"));
  return h.digest("hex");
}

test("Esc twice lists the prompts; rewinding to prompt 2 restores the files and the conversation, offers prompt 2 again; a hand-changed file is named and kept", async (t) => {
  const root = tempTree({
    "calc.py": "def add(a, b):\n    return a - b\n",
    "notes.txt": "alpha beta\n",
    "old.txt": "old\n",
    ".gitignore": ".rt/\n",
  });
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "init");
  fs.appendFileSync(path.join(root, "notes.txt"), "stashed\n");
  git(root, "stash", "-q");
  const gitBefore = gitState(root);
  ollama.server.script(
    reply.toolCall("edit", { path: "calc.py", old_string: "return a - b", new_string: "return a + b" }),
    reply.text("ANSWER-ONE"),
    reply.toolCall("bash", {
      command: "sed -i 's/alpha/gamma/' notes.txt && printf 'made\\n' > made.txt && rm old.txt",
    }),
    reply.text("ANSWER-TWO"),
    reply.toolCall("edit", { path: "calc.py", old_string: "return a + b", new_string: "return a * b" }),
    reply.text("ANSWER-THREE"),
    reply.text("ANSWER-AGAIN"),
  );
  const term = new Tmux(100, 30);
  const env = {
    ...process.env,
    ...ollama.env({ XDG_STATE_HOME: tempTree({}, "rt-state-"), XDG_CACHE_HOME: tempTree({}, "rt-cache-") }),
    RT_ROOT: undefined,
    NO_COLOR: undefined,
    TERM: "xterm-256color",
  };
  term.start(
    t,
    `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} chat --model ollama/test-model --approval auto; sleep 600`,
    env as NodeJS.ProcessEnv,
    root,
  );
  await term.waitFor(idle);

  const before: Array<Record<string, string>> = [];
  for (const [prompt, answer] of [
    ["PROMPT-ONE fix the sign", "ANSWER-ONE"],
    ["PROMPT-TWO tidy the notes", "ANSWER-TWO"],
    ["PROMPT-THREE multiply", "ANSWER-THREE"],
  ]) {
    before.push(fileHashes(root));
    term.type(prompt);
    term.keys("Enter");
    await term.waitFor((s) => s.includes(answer) && idle(s));
  }
  assert.equal(fs.existsSync(path.join(root, "old.txt")), false);

  // Esc twice on the empty prompt: the list of prompts, the last one chosen.
  term.keys("Escape");
  await term.waitFor(/Esc again to rewind/);
  term.keys("Escape");
  const list = await term.waitFor(/Rewind to just before which prompt\?/);
  assert.match(list, /^❯ 3\. PROMPT-THREE multiply/m);
  assert.match(list, /^ {2}2\. PROMPT-TWO tidy the notes/m);
  term.keys("2");
  term.keys("Enter");
  const modes = await term.waitFor(/Rewind to prompt 2: restore what\?/);
  assert.match(modes, /1\. Restore code and conversation\n\s+2\. Restore conversation only\n\s+3\. Restore code only/);
  term.keys("Enter");
  const rewound = await term.waitFor(/rewound: code: 3 restored, 1 removed/);
  assert.deepEqual(fileHashes(root), before[1], "every file as it was just before prompt 2");
  assert.match(rewound, /PROMPT-ONE fix the sign/);
  assert.match(rewound, /ANSWER-ONE/);
  assert.doesNotMatch(rewound, /ANSWER-TWO|PROMPT-THREE|ANSWER-THREE/);
  // The input holds prompt 2's text again, for editing.
  const rows = rewound.split("\n");
  const input = rows.filter((l) => l.startsWith("❯ ")).at(-1);
  assert.equal(input, "❯ PROMPT-TWO tidy the notes");

  // Sent again: the model sees prompt 1, its answer, and this prompt only.
  term.keys("Enter");
  await term.waitFor((s) => s.includes("ANSWER-AGAIN") && idle(s));
  const sent = JSON.stringify(ollama.server.completions.at(-1)!.body.messages);
  assert.match(sent, /PROMPT-ONE[\s\S]*ANSWER-ONE[\s\S]*PROMPT-TWO tidy the notes/);
  assert.doesNotMatch(sent, /ANSWER-TWO|PROMPT-THREE|ANSWER-THREE|return a \* b/);

  // A file changed by hand since: rewinding the code to prompt 1 names it and keeps it; the rest is restored.
  fs.writeFileSync(path.join(root, "notes.txt"), "changed by hand\n");
  term.type("/rewind");
  term.keys("Enter");
  await term.waitFor(/Rewind to just before which prompt\?/);
  term.keys("1");
  term.keys("Enter");
  await term.waitFor(/Rewind to prompt 1: restore what\?/);
  term.keys("3");
  term.keys("Enter");
  const named = await term.waitFor(/Changed outside rt since the checkpoint/);
  assert.match(named, /^ {2}notes\.txt$/m);
  assert.match(named, /1\. Keep them, restore the rest/);
  term.keys("Enter");
  await term.waitFor(/rewound: code: 1 restored, 0 removed; kept notes\.txt/);
  assert.equal(fs.readFileSync(path.join(root, "notes.txt"), "utf8"), "changed by hand\n");
  assert.equal(fs.readFileSync(path.join(root, "calc.py"), "utf8"), "def add(a, b):\n    return a - b\n");
  assert.equal(gitState(root), gitBefore, "the user's .git is byte-identical");
});
