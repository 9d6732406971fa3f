// The evidence: a corpus of commands that try to write, delete,
// escalate or exfiltrate, each run for real against a temp tree, and a corpus
// of legitimate read-only investigations that must succeed.
//   1. Through the bash tool in safe-read-only (structural check + sandbox):
//      every attack is refused with a reason or stopped by the OS, and nothing
//      changes (the repository with its .git, a directory outside the root,
//      and HOME are hashed before and after; a TCP listener counts connections).
//   2. The same corpus straight through the sandbox runner, the structural
//      check bypassed, with every namespace strategy that works here: the
//      sandbox alone holds, and each attempt fails with the OS's own error.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { researchTree, OS_ERROR } from "./fixture.ts";
import { callTool } from "../../src/tools/policy.ts";
import { shellExecutable, startCommand } from "../../src/shell/runner.ts";
import {
  candidateStrategies,
  findBwrap,
  probeStrategy,
  type BwrapFeatures,
  type SandboxStrategy,
} from "../../src/shell/sandbox.ts";

interface Attack {
  cmd: string;
  why: string;
  needs?: string;
  sandbox?: string;
}
interface Investigation {
  cmd: string;
  expect?: string;
}

const attacks = JSON.parse(fs.readFileSync(new URL("./corpus/attacks.json", import.meta.url), "utf8")) as Attack[];
const investigations = JSON.parse(
  fs.readFileSync(new URL("./corpus/investigations.json", import.meta.url), "utf8"),
) as Investigation[];

// Exfiltration attempts aim at this listener on the host's loopback; it must never hear from them.
let connections = 0;
const listener = net.createServer((socket) => {
  connections++;
  socket.destroy();
});
await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
const port = (listener.address() as net.AddressInfo).port;
after(() => listener.close());

// The io_uring attacks: corpus/io_uring.c, compiled here (gcc is installed by
// scripts/ensure-test-deps.sh), and a Unix-socket daemon on the host that must
// never hear from them. Both live under /var/tmp: the sandbox's /tmp is private.
const uringDir = fs.realpathSync(
  fs.mkdtempSync(path.join(fs.existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir(), "rt-uring-")),
);
process.on("exit", () => fs.rmSync(uringDir, { recursive: true, force: true }));
const uring = path.join(uringDir, "io_uring");
execFileSync("gcc", ["-O1", "-o", uring, fileURLToPath(new URL("./corpus/io_uring.c", import.meta.url))], {
  stdio: ["ignore", "pipe", "pipe"],
});
const unixSocket = path.join(uringDir, "daemon.sock");
let unixConnections = 0;
const unixDaemon = net.createServer((socket) => {
  unixConnections++;
  socket.destroy();
});
await new Promise<void>((resolve) => unixDaemon.listen(unixSocket, resolve));
after(() => unixDaemon.close());

/** An attack's command line for a tree whose outside directory is `outside`. */
const withPort = (cmd: string, outside = "/nonexistent") =>
  cmd
    .replaceAll("{{PORT}}", String(port))
    .replaceAll("{{URING}}", uring)
    .replaceAll("{{UNIX_SOCKET}}", unixSocket)
    .replaceAll("{{OUTSIDE}}", outside);

function installed(tool: string | undefined): boolean {
  if (!tool) return true;
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The OS error line in a command's output, if any. */
function osErrorLine(text: string): string | undefined {
  return text.split("\n").find((l) => OS_ERROR.test(l));
}

test("the corpora are big enough: at least 60 attacks and 20 investigations", () => {
  assert.ok(attacks.length >= 60, `${attacks.length} attacks`);
  assert.ok(investigations.length >= 20, `${investigations.length} investigations`);
  assert.equal(new Set(attacks.map((a) => a.cmd)).size, attacks.length, "no duplicate attacks");
});

test("safe-read-only: every attack is refused with a reason or fails with the OS's error, and nothing changes", async () => {
  const tree = researchTree();
  const ws = tree.workspace();
  const before = tree.hash();
  const problems: string[] = [];
  let refused = 0;
  let stoppedByOs = 0;
  for (const attack of attacks) {
    const r = await callTool(ws, "bash", { command: withPort(attack.cmd, tree.outside), timeout: 30 });
    if (r.success) {
      problems.push(`${attack.cmd}: succeeded\n${r.output}`);
      continue;
    }
    if (r.error_type === "denied") {
      assert.equal(r.refused, true, `${attack.cmd}: denied but not by the structural check: ${r.error}`);
      assert.ok(typeof r.reason === "string" && r.reason.length > 10, `${attack.cmd}: no reason`);
      refused++;
      continue;
    }
    const os = osErrorLine(`${r.stderr}\n${r.stdout}`);
    if (!os) problems.push(`${attack.cmd}: failed without an OS error\n${r.output}`);
    else stoppedByOs++;
    // Each attack runs against the tree as it was: nothing may have changed so far.
    assert.equal(tree.hash(), before, `the tree changed after: ${attack.cmd}`);
  }
  assert.deepEqual(problems, []);
  assert.equal(tree.hash(), before, "the tree, the outside directory or HOME changed");
  assert.equal(connections, 0, "an attack reached the host's loopback");
  assert.equal(unixConnections, 0, "an attack reached the host's Unix-socket daemon");
  // Both layers took part: the check refused most, the sandbox stopped what the check let through.
  assert.ok(refused >= 60, `${refused} refused by the structural check`);
  assert.ok(stoppedByOs >= 5, `${stoppedByOs} stopped by the operating system`);
});

const strategies: Array<{ strategy: SandboxStrategy; bwrap: string; features: BwrapFeatures }> = [];
{
  const bwrap = findBwrap(process.env.RT_BWRAP, undefined).bwrap;
  if (bwrap) {
    const help = execFileSync(bwrap, ["--help"], { encoding: "utf8" });
    const features = { disableUserns: help.includes("--disable-userns"), size: help.includes("--size") };
    for (const strategy of candidateStrategies()) {
      if ((await probeStrategy(bwrap, strategy, features)).ok) strategies.push({ strategy, bwrap, features });
    }
  }
}

test("bubblewrap works here with at least one namespace strategy", () => {
  assert.ok(strategies.length > 0, "bwrap is missing or cannot create namespaces (apt-get install bubblewrap)");
});

/**
 * The attacks of one sandbox, side by side: each in its own `bash -c` (as the runner starts a command)
 * with standard input from /dev/null as the runner gives it, its output and error together in a file of
 * the sandbox's private /tmp; then each one's output between markers, with its exit code. Side by side,
 * the attacks that wait (a package manager resolving a name the sandbox cannot reach) wait together.
 */
const BATCH_DRIVER = `i=0
for c in "$@"; do
  ( "$0" -c "$c" </dev/null >"/tmp/rt-attack-$i.out" 2>&1; echo "$?" >"/tmp/rt-attack-$i.exit" ) &
  i=$((i + 1))
done
wait
i=0
for c in "$@"; do
  printf '\\n@@rt-attack %d start@@\\n' "$i"
  cat "/tmp/rt-attack-$i.out"
  printf '\\n@@rt-attack %d exit %s@@\\n' "$i" "$(cat "/tmp/rt-attack-$i.exit")"
  i=$((i + 1))
done`;

/** Attacks per sandbox: the tree is hashed after each batch (each attack still shows its own OS error). */
const SANDBOX_BATCH = 16;

for (const { strategy, bwrap, features } of strategies) {
  test(`sandbox alone (${strategy} strategy, structural check bypassed): every attack fails with an OS error and nothing changes`, async () => {
    const tree = researchTree();
    const before = tree.hash();
    const problems: string[] = [];
    const runnable = attacks.filter((a) => installed(a.needs));
    for (let start = 0; start < runnable.length; start += SANDBOX_BATCH) {
      const batch = runnable.slice(start, start + SANDBOX_BATCH);
      let out = "";
      const run = startCommand({
        command: "",
        argv: [
          shellExecutable(),
          "-c",
          BATCH_DRIVER,
          shellExecutable(),
          ...batch.map((a) => withPort(a.cmd, tree.outside)),
        ],
        cwd: tree.repo,
        env: tree.env,
        sandbox: { bwrap, strategy, root: tree.repo, cwd: tree.repo, allowNet: false, features },
        timeoutMs: 30_000 * batch.length,
        onData: (_s, chunk) => (out += chunk.toString("utf8")),
      });
      await run.done;
      batch.forEach((attack, i) => {
        const section = new RegExp(`\\n@@rt-attack ${i} start@@\\n([^]*)\\n@@rt-attack ${i} exit (\\d+)@@\\n`).exec(
          out,
        );
        if (!section) {
          problems.push(`${attack.cmd}: did not run to its end in the sandbox:\n${out}`);
          return;
        }
        const [, text, code] = section;
        // A few programs fail silently (git stash gives up when it cannot lock the index): for
        // them the corpus says so, and a non-zero exit with nothing changed is the evidence.
        if (attack.sandbox === "exit:nonzero") {
          if (code === "0") problems.push(`${attack.cmd}: exit 0`);
        } else {
          const expected = attack.sandbox ? new RegExp(attack.sandbox, "i") : OS_ERROR;
          if (!expected.test(text)) problems.push(`${attack.cmd}: exit ${code}, no OS error in:\n${text}`);
        }
      });
      if (tree.hash() !== before)
        problems.push(`one of these CHANGED THE TREE:\n${batch.map((a) => a.cmd).join("\n")}`);
    }
    assert.deepEqual(problems, []);
    assert.ok(runnable.length >= 60, `only ${runnable.length} attacks ran`);
    assert.equal(tree.hash(), before);
    assert.equal(connections, 0, "an attack reached the host's loopback");
    assert.equal(unixConnections, 0, "an attack reached the host's Unix-socket daemon");
  });
}

test("legitimate read-only investigations succeed in safe-read-only, and change nothing", async () => {
  const tree = researchTree();
  const ws = tree.workspace();
  const before = tree.hash();
  const problems: string[] = [];
  for (const inv of investigations) {
    const r = await callTool(ws, "bash", { command: inv.cmd, timeout: 30 });
    if (!r.success) problems.push(`${inv.cmd}: ${r.error}\n${r.output}`);
    else if (inv.expect && !String(r.stdout).includes(inv.expect))
      problems.push(`${inv.cmd}: expected "${inv.expect}" in:\n${r.stdout}`);
    else assert.equal(r.sandboxed, true);
  }
  assert.deepEqual(problems, []);
  assert.equal(tree.hash(), before);
});
