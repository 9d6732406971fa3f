// `rt bash` and the global options --sandbox, --allow-net and --out.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rt, rtBatch, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";
import { researchTree } from "./fixture.ts";

test("rt bash COMMAND: the command's own stdout, stderr and exit code", async () => {
  const tree = researchTree();
  const r = await rt(["bash", "git log --format=%s"], { cwd: tree.repo });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "document deployment\ninitial import\n");
  const f = await rtMain(["bash", "echo out; echo err >&2; exit 3"], { cwd: tree.repo });
  assert.equal(f.code, 3);
  assert.equal(f.stdout, "out\n");
  assert.equal(f.stderr, "err\n");
});

test("rt bash -- WORDS: words are quoted back into one command; --cwd; --timeout exits 124", async () => {
  const tree = researchTree();
  const w = await rtMain(["bash", "--", "printf", "%s|", "a b", "it's"], { cwd: tree.repo });
  assert.equal(w.stdout, "a b|it's|");
  const c = await rtMain(["bash", "--cwd", "src", "ls"], { cwd: tree.repo });
  assert.equal(c.stdout, "app.py\nutil.py\n");
  const t = await rtMain(["bash", "--timeout", "1", "sleep 30"], { cwd: tree.repo });
  assert.equal(t.code, 124);
  assert.match(t.stderr, /timed out after 1\.00 s/);
  const outside = await rtMain(["bash", "--cwd", "..", "ls"], { cwd: tree.repo });
  assert.equal(outside.code, 1);
  assert.match(outside.stderr, /outside the workspace root/);
});

test("rt --profile safe-read-only bash: refusals name the construct; the OS stops the rest; nothing changes", async () => {
  const tree = researchTree();
  const before = tree.hash();
  const refused = await rtMain(["--profile", "safe-read-only", "bash", "sed -i s/a/b/ data.txt"], { cwd: tree.repo });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /refused, nothing ran: `sed -i` edits files in place/);
  const os = await rtMain(["--profile", "safe-read-only", "bash", 'python3 -c \'open("data.txt", "w")\''], {
    cwd: tree.repo,
  });
  assert.equal(os.code, 1);
  assert.match(os.stderr, /Read-only file system/);
  const ok = await rtMain(["--profile", "safe-read-only", "bash", "grep -c ERROR logs/app.log"], { cwd: tree.repo });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, "40\n");
  assert.equal(tree.hash(), before);
});

test("rt --sandbox: the dev profile runs commands in the sandbox; without it they run normally", async () => {
  const root = tempTree({ "f.txt": "x\n" });
  const s = await rtMain(["--sandbox", "bash", 'python3 -c \'open("g.txt", "w")\''], { cwd: root });
  assert.equal(s.code, 1);
  assert.match(s.stderr, /Read-only file system/);
  assert.equal(fs.existsSync(path.join(root, "g.txt")), false);
  const n = await rtMain(["bash", "echo y > g.txt"], { cwd: root });
  assert.equal(n.code, 0, n.stderr);
  assert.equal(fs.readFileSync(path.join(root, "g.txt"), "utf8"), "y\n");
});

test("rt --allow-net: network clients pass the check (the sandbox shares the network)", async () => {
  const root = tempTree();
  const no = await rtMain(["--sandbox", "bash", "curl -sS -m 2 http://127.0.0.1:9/"], { cwd: root });
  assert.match(no.stderr, /`curl` uses the network, which the sandbox does not have/);
  const yes = await rtMain(["--sandbox", "--allow-net", "bash", "curl -sS -m 2 http://127.0.0.1:9/"], { cwd: root });
  assert.doesNotMatch(yes.stderr, /refused/);
  assert.match(yes.stderr, /curl: \(7\)/, "curl ran and found nothing listening");
});

test("rt call --batch: a background shell, its output and kill_shell in one process", async () => {
  const root = tempTree();
  const { results } = await rtBatch(
    [
      { tool: "bash", args: { command: "echo first; sleep 30", background: true } },
      { tool: "bash", args: { command: "sleep 0.5" } },
      { tool: "bash_output", args: { id: "bash_1" } },
      { tool: "kill_shell", args: { id: "bash_1" } },
      { tool: "bash_output", args: { id: "bash_1" } },
    ],
    { cwd: root },
  );
  assert.equal(results[0].id, "bash_1");
  assert.equal(results[2].running, true);
  assert.match(results[2].output, /first/);
  assert.equal(results[3].was_running, true);
  assert.equal(results[4].running, false);
});

test("rt --help lists rt bash and the sandbox options", async () => {
  const r = await rtMain(["--help"], { cwd: tempTree() });
  for (const s of ["rt bash", "--sandbox", "--allow-net", "--out"]) assert.ok(r.stdout.includes(s), s);
});
