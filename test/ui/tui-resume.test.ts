// A resumed session shows its earlier tool calls as they looked live (the
// full-screen UI, the line REPL, rt run on a terminal); todo_write gets a
// line of its own; `!COMMAND` runs the user's own command and the model sees
// its output with the next prompt; rt run's ask_user prompt line keeps to
// itself. A real terminal (tmux) where the face needs one, the model played
// by the scripted server.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { reply } from "../llm-server.ts";
import { CLI, rt, tempTree } from "../helpers.ts";
import { requestText, scriptedOllama } from "../agent/harness.ts";
import { Tmux } from "./tmux.ts";

const ollama = scriptedOllama();
const MODEL = ["--model", "ollama/test-model"];

/** A session of one prompt: a todo list, a command and an answer (rt run, no terminal). */
async function firstSession(root: string, env: Record<string, string | undefined>): Promise<void> {
  ollama.server.script(
    reply.toolCall("todo_write", {
      todos: [
        { content: "Print the marker", activeForm: "Printing the marker", status: "in_progress" },
        { content: "Answer", activeForm: "Answering", status: "pending" },
      ],
    }),
    reply.toolCall("bash", { command: "printf 'RESUME-OUT-1\\nRESUME-OUT-2\\n'" }),
    reply.text("ANSWER-ONE"),
  );
  const r = await rt(["run", ...MODEL, "--approval", "auto", "PROMPT-ONE"], { cwd: root, env });
  assert.equal(r.code, 0, r.stderr);
}

function terminal(t: import("node:test").TestContext, root: string, args: string, env: Record<string, unknown>): Tmux {
  const term = new Tmux(100, 30);
  term.start(
    t,
    `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} ${args}; sleep 600`,
    { ...process.env, ...env, RT_ROOT: undefined, NO_COLOR: undefined, TERM: "xterm-256color" } as NodeJS.ProcessEnv,
    root,
  );
  return term;
}

test("TUI: --continue shows the earlier tool calls with their results and todo_write's line; !COMMAND runs and reaches the next request; #NOTE goes to the chosen memory", async (t) => {
  const root = tempTree({ "a.txt": "a\n" });
  const env = ollama.env({ XDG_STATE_HOME: tempTree({}, "rt-state-"), XDG_CACHE_HOME: tempTree({}, "rt-cache-") });
  await firstSession(root, env);
  const term = terminal(t, root, "chat --model ollama/test-model --approval ask --continue", env);
  // (The first frame waits for Ink to load: slow on a loaded machine.)
  const resumed = await term.waitFor(/ANSWER-ONE[\s\S]*\/help · Ctrl-C twice quits/, 45_000);
  assert.match(resumed, /^❯ PROMPT-ONE$/m);
  assert.match(resumed, /^● todo_write: 0\/2 done · now: Printing the marker$/m, "todo_write has a line of its own");
  assert.match(
    resumed,
    /^● bash: printf 'RESUME-OUT-1\\nRESUME-OUT-2\\n'\n {2}⎿ exit code 0 · [\d.]+ s\n {4}--- stdout ---\n {4}RESUME-OUT-1\n {4}RESUME-OUT-2$/m,
    "the command and its result, as they were shown live",
  );
  assert.match(resumed, /\[→\] Printing the marker/, "the todo panel is back");

  ollama.server.script(reply.text("NEXT-ANSWER"));
  term.type("!echo BANG-OUT");
  term.keys("Enter");
  const ran = await term.waitFor(/● bash: echo BANG-OUT\n[\s\S]*BANG-OUT[\s\S]*\/help · Ctrl-C twice quits/);
  assert.match(ran, /^❯ !echo BANG-OUT$/m);
  assert.doesNotMatch(ran, /rt wants to run/, "the user's own command is not asked about");
  assert.equal(ollama.server.completions.length, 3, "no model request for a command");
  // #NOTE: asked which memory; the project's AGENTS.md gets it, and the next request's system prompt holds it.
  term.type("#always run the tests first");
  term.keys("Enter");
  await term.waitFor(/Remember this note in which memory\?[\s\S]*Project memory: AGENTS\.md[\s\S]*User memory: /);
  term.keys("Enter");
  await term.waitFor(/\[rt\] remembered in AGENTS\.md/);
  assert.equal(fs.readFileSync(path.join(root, "AGENTS.md"), "utf8"), "- always run the tests first\n");
  term.type("what did it print?");
  term.keys("Enter");
  await term.waitFor(/NEXT-ANSWER/);
  const sent = requestText(ollama.server.completions[3].body);
  assert.match(sent, /# Project instructions \(AGENTS\.md\)\n\n- always run the tests first/);
  assert.match(
    sent,
    /The user ran this shell command themselves[\s\S]*echo BANG-OUT[\s\S]*BANG-OUT[\s\S]*what did it print\?/,
  );
});

test("line REPL: --continue prints the earlier prompt, its calls and answer; !COMMAND prints its output and the model gets it; #NOTE to the user's memory, or not at all", async () => {
  const root = tempTree({});
  const env = ollama.env({ XDG_STATE_HOME: tempTree({}, "rt-state-") });
  await firstSession(root, env);
  ollama.server.script(reply.text("LATER"));
  const r = await rt(["chat", "--plain", ...MODEL, "--continue"], {
    cwd: root,
    env,
    input: "!printf 'PIPE-OUT\\n'; exit 3\n#  prefer tabs\nu\n#not this one\nx\nand now?\n",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /\[rt\] earlier in this session:\n> PROMPT-ONE\n● todo_write: 0\/2 done · now: Printing the marker\n {2}\[→\] Printing the marker\n {2}\[ \] Answer\n {2}✓ 1 line\n● bash: printf[^\n]*\n {2}✓ 5 lines\nANSWER-ONE\n/,
  );
  assert.match(
    r.stdout,
    /● bash: printf 'PIPE-OUT\\n'; exit 3\nerror: command failed with exit code 3\nexit code 3[^\n]*\n--- stdout ---\nPIPE-OUT\n/,
  );
  assert.match(r.stdout, /\[rt\] remembered in \S+\/rt\/AGENTS\.md\n[\s\S]*\[rt\] not remembered\n/);
  assert.equal(fs.readFileSync(path.join(env.XDG_CONFIG_HOME!, "rt", "AGENTS.md"), "utf8"), "- prefer tabs\n");
  assert.equal(fs.existsSync(path.join(root, "AGENTS.md")), false);
  const sent = requestText(ollama.server.completions[3].body);
  assert.match(sent, /# The user's own instructions \(\S+\/rt\/AGENTS\.md\)\n\n- prefer tabs/);
  assert.doesNotMatch(sent, /not this one/);
  assert.match(
    sent,
    /<command>\nprintf 'PIPE-OUT\\n'; exit 3\n<\/command>\nerror: command failed with exit code 3[\s\S]*PIPE-OUT[\s\S]*and now\?/,
  );
});

test("rt run on a terminal: ask_user's prompt line stays on its own; --continue shows the earlier calls on stderr", async (t) => {
  const root = tempTree({});
  const env = ollama.env({ XDG_STATE_HOME: tempTree({}, "rt-state-") });
  ollama.server.script(
    reply.toolCall("ask_user", {
      questions: [
        {
          question: "Which colour?",
          header: "Colour",
          options: [
            { label: "Red", description: "warm" },
            { label: "Blue", description: "cool" },
          ],
          multiSelect: false,
        },
      ],
    }),
    reply.text("PICKED"),
    reply.text("AGAIN"),
  );
  const term = terminal(
    t,
    root,
    `run --model ollama/test-model "choose one" && ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run --model ollama/test-model --continue "AGAIN-PROMPT"`,
    env,
  );
  const asked = await term.waitFor(/Choose 1-3, or type an answer:/);
  assert.match(
    asked,
    /^● ask_user\n\n\[Colour\] Which colour\?\n {2}1\. Red — warm\n {2}2\. Blue — cool\n {2}3\. Other/m,
    "the call's line first",
  );
  assert.match(asked, /^Choose 1-3, or type an answer: ?$/m, "nothing written onto the prompt line");
  term.type("2");
  term.keys("Enter");
  const again = await term.waitFor(/AGAIN\n/);
  assert.match(again, /\[rt\] earlier in this session:\n> choose one\n● ask_user\n {2}✓ \d+ lines?\nPICKED\n/);
});
