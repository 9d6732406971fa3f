// Checkpoints and `rt rewind` from the command line: three `rt run` prompts
// whose turns change files with `edit` and with `bash` (sed -i, a new file, a
// removed file), the model played by the scripted server. A rewind restores
// the bytes of every file as they were just before the prompt, the
// conversation becomes a new branch (the old session file kept), a file
// changed by hand since is named and not overwritten without --force, and a
// rewind is undone by one more rewind. The user's .git never changes.
//
// The prompts that set the scene and the checks around the rewinds run the
// CLI's own `main` in this process (test/rtMain.ts); every claim about
// `rt rewind` keeps a round trip through the real executable.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { reply } from "../llm-server.ts";
import { git, rt, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";
import { scriptedOllama } from "./harness.ts";
import { fileHashes } from "../workspace/treeFiles.ts";

const ollama = scriptedOllama();
const MODEL = ["--model", "ollama/test-model", "--approval", "auto"];

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

/** A user repository with a commit, a stash and a staged change; three prompts run through `rt run`. */
async function threePrompts() {
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
  fs.writeFileSync(path.join(root, "staged.txt"), "staged\n");
  git(root, "add", "staged.txt");
  const env = ollama.env({ XDG_CACHE_HOME: tempTree({}, "rt-cache-"), XDG_STATE_HOME: tempTree({}, "rt-state-") });
  const gitBefore = gitState(root);
  const hashes: Array<Record<string, string>> = [];
  const run = async (prompt: string, first: boolean) => {
    hashes.push(fileHashes(root));
    const r = await rtMain(["run", ...MODEL, ...(first ? [] : ["--continue"]), prompt], { cwd: root, env });
    assert.equal(r.code, 0, r.stderr);
  };
  ollama.server.script(
    reply.toolCall("edit", { path: "calc.py", old_string: "return a - b", new_string: "return a + b" }),
    reply.text("ANSWER-ONE"),
    reply.toolCall("bash", {
      command: "sed -i 's/alpha/gamma/' notes.txt && printf 'made\\n' > made.txt && rm old.txt",
    }),
    reply.text("ANSWER-TWO"),
    reply.toolCall("edit", { path: "calc.py", old_string: "return a + b", new_string: "return a * b" }),
    reply.text("ANSWER-THREE"),
  );
  await run("PROMPT-ONE fix the sign", true);
  await run("PROMPT-TWO tidy the notes", false);
  await run("PROMPT-THREE multiply", false);
  assert.equal(fs.readFileSync(path.join(root, "notes.txt"), "utf8"), "gamma beta\n");
  assert.equal(fs.existsSync(path.join(root, "old.txt")), false);
  return { root, env, hashes, gitBefore };
}

test("rt rewind --to 2: the files as they were just before prompt 2, the conversation a new branch holding prompt 1 and its answer; undone by one more rewind", async () => {
  const { root, env, hashes, gitBefore } = await threePrompts();
  const afterThree = fileHashes(root);
  const listed = await rtMain(["sessions"], { cwd: root, env });
  assert.match(listed.stdout, /^ +1 {2}PROMPT-ONE fix the sign$/m);
  assert.match(listed.stdout, /^ +3 {2}PROMPT-THREE multiply$/m);
  const sessionsBefore = fs.readdirSync(path.join(root, ".rt", "sessions")).filter((n) => n.endsWith(".jsonl"));

  const r = await rt(["rewind", "--to", "2"], { cwd: root, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /prompt 2 was: PROMPT-TWO tidy the notes/);
  assert.deepEqual(fileHashes(root), hashes[1], "every file as it was just before prompt 2");
  const sessionsAfter = fs.readdirSync(path.join(root, ".rt", "sessions")).filter((n) => n.endsWith(".jsonl"));
  assert.equal(sessionsAfter.length, sessionsBefore.length + 1, "a new branch; the earlier file is kept");
  assert.equal(gitState(root), gitBefore, "the user's .git is byte-identical");

  // The next prompt continues the branch: the model sees prompt 1 and its answer, nothing of prompts 2 and 3.
  ollama.server.script(reply.text("ANSWER-AGAIN"));
  const next = await rtMain(["run", ...MODEL, "--continue", "PROMPT-FOUR"], { cwd: root, env });
  assert.equal(next.code, 0, next.stderr);
  const sent = JSON.stringify(ollama.server.completions.at(-1)!.body.messages);
  assert.match(sent, /PROMPT-ONE/);
  assert.match(sent, /ANSWER-ONE/);
  assert.match(sent, /PROMPT-FOUR/);
  assert.doesNotMatch(sent, /PROMPT-TWO|ANSWER-TWO|PROMPT-THREE|ANSWER-THREE/);

  // The old branch still resumes whole.
  const old = sessionsBefore[0].replace(/\.jsonl$/, "");
  ollama.server.script(reply.text("OLD-BRANCH"));
  const resumed = await rtMain(["run", ...MODEL, "--resume", old, "--fork-session", "PROMPT-OLD"], {
    cwd: root,
    env,
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(
    JSON.stringify(ollama.server.completions.at(-1)!.body.messages),
    /PROMPT-THREE[\s\S]*ANSWER-THREE[\s\S]*PROMPT-OLD/,
  );

  // Undo: the branch made by the rewind (continued by PROMPT-FOUR) lists "undo the rewind"; its code goes back to after prompt 3.
  const branch = sessionsAfter.find((n) => !sessionsBefore.includes(n))!.replace(/\.jsonl$/, "");
  const points = await rtMain(["rewind", "--session", branch], { cwd: root, env });
  const undo = /^ +(\d+) {2}↶ undo the rewind/m.exec(points.stdout);
  assert.ok(undo, points.stdout);
  const u = await rt(["rewind", "--session", branch, "--to", undo[1], "--code"], { cwd: root, env });
  assert.equal(u.code, 0, u.stderr);
  assert.deepEqual(fileHashes(root), afterThree, "undoing the rewind gives back the files as prompt 3 left them");
  assert.equal(gitState(root), gitBefore);
});

test("rt rewind: a file changed by hand since the checkpoint is named and kept; without a terminal nothing changes (exit 1) unless --force; --code and --conversation alone", async () => {
  const { root, env, hashes, gitBefore } = await threePrompts();
  fs.writeFileSync(path.join(root, "made.txt"), "changed by hand\n");
  const before = fileHashes(root);
  const refused = await rt(["rewind", "--to", "2", "--code"], { cwd: root, env });
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /changed outside rt since the checkpoint, and not overwritten without confirmation: made\.txt\. Nothing was changed; --force/,
  );
  assert.deepEqual(fileHashes(root), before, "nothing changed");

  const bad = await rtMain(["rewind", "--to", "9"], { cwd: root, env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--to must be a point of session \S+, from 1 to 3, not 9/);
  const both = await rtMain(["rewind", "--to", "1", "--code", "--conversation"], { cwd: root, env });
  assert.equal(both.code, 2);

  // Conversation only: the files stay, a new branch holds prompt 1 only.
  const conv = await rtMain(["rewind", "--to", "2", "--conversation"], { cwd: root, env });
  assert.equal(conv.code, 0, conv.stderr);
  assert.deepEqual(fileHashes(root), before);
  assert.match(conv.stdout, /conversation: new session/);

  // Code only, forced: the hand-changed file is restored too (made.txt did not exist before prompt 2).
  const forced = await rt(
    [
      "rewind",
      "--to",
      "2",
      "--code",
      "--force",
      "--session",
      (/rt chat --resume (\S+)\)/.exec(conv.stdout) ?? [])[1] ?? "",
    ],
    { cwd: root, env },
  );
  assert.equal(forced.code, 0, forced.stderr);
  assert.deepEqual(fileHashes(root), hashes[1]);
  assert.equal(gitState(root), gitBefore);
});
