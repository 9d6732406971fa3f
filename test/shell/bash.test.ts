// The bash, bash_output and kill_shell tools: timeouts that kill the whole
// process group, background shells, working_dir, output truncation with the
// full text saved, and the profile rules (sandbox on, off, unavailable).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { tempTree, REPO } from "../helpers.ts";
import { researchTree } from "./fixture.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { liveGroups } from "../../src/shell/processes.ts";
import { resetSandboxProbe } from "../../src/shell/sandbox.ts";
import { BASH_MAX_OUTPUT_BYTES } from "../../src/base/limits.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PIDs of live processes whose command line contains `marker` (zombies excluded). */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, "utf8");
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      if (cmd.includes(marker) && !/\) Z /.test(stat)) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

async function gone(marker: string, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (processesWith(marker).length === 0) return true;
    await sleep(50);
  }
  return processesWith(marker).length === 0;
}

function devWorkspace(files: Record<string, string> = {}, opts: Record<string, unknown> = {}) {
  const root = tempTree(files);
  return { root, ws: createWorkspace({ root, profile: "dev", env: { ...process.env, RT_ROOT: undefined }, ...opts }) };
}

test("a command's exit code, duration and labelled stdout/stderr", async () => {
  const { ws } = devWorkspace({ "a.txt": "hello\n" });
  const r = await callTool(ws, "bash", { command: "cat a.txt; echo oops >&2" });
  assert.equal(r.success, true);
  assert.equal(r.exit_code, 0);
  assert.equal(typeof r.duration_ms, "number");
  assert.match(r.output, /^exit code 0 · [\d.]+ s\n--- stdout ---\nhello\n--- stderr ---\noops\n$/);
  assert.equal(r.stdout, "hello\n");
  assert.equal(r.stderr, "oops\n");
  assert.equal(r.sandboxed, false);
});

test("a failing command: success false, its exit code, the output still there", async () => {
  const { ws } = devWorkspace();
  const r = await callTool(ws, "bash", { command: "echo partial; ls no-such-file" });
  assert.equal(r.success, false);
  assert.equal(r.exit_code, 2);
  assert.match(r.error ?? "", /exit code 2: .*no-such-file/);
  assert.match(r.output, /--- stdout ---\npartial/);
});

test("timeout kills the whole process group, children and grandchildren, and says so", async () => {
  const { ws } = devWorkspace();
  const marker = `rt-timeout-${process.pid}-${Date.now()}`;
  const started = Date.now();
  const r = await callTool(ws, "bash", {
    command: `sh -c 'sleep 300; : ${marker}' & (sleep 301; : ${marker}) & sleep 302 # ${marker}`,
    timeout: 1,
  });
  assert.equal(r.success, false);
  assert.equal(r.timed_out, true);
  assert.match(
    r.error ?? "",
    /timed out after 1\.00 s: the command and every process it started \(its whole process group\) were killed/,
  );
  assert.ok(Date.now() - started < 10_000);
  assert.ok(await gone(marker), `left running: ${processesWith(marker)}`);
  assert.deepEqual(liveGroups(), []);
});

test("a command's leftover background processes are killed when it returns", async () => {
  const { ws } = devWorkspace();
  const marker = `rt-leftover-${process.pid}-${Date.now()}`;
  const r = await callTool(ws, "bash", { command: `(sleep 300; : ${marker}) > /dev/null 2>&1 & echo started` });
  assert.equal(r.success, true);
  assert.ok(await gone(marker), "the background child outlived the command");
});

test("sandboxed timeout: the whole sandbox is killed", async () => {
  const tree = researchTree();
  const ws = tree.workspace();
  const marker = `rt-sbx-timeout-${process.pid}-${Date.now()}`;
  const r = await callTool(ws, "bash", { command: `sh -c 'sleep 300; : ${marker}' | cat`, timeout: 1 });
  assert.equal(r.timed_out, true);
  assert.equal(r.sandboxed, true);
  assert.ok(await gone(marker));
});

test("timeout above the maximum is a usage error naming the limit", async () => {
  const { ws } = devWorkspace();
  const r = await callTool(ws, "bash", { command: "true", timeout: 601 });
  assert.equal(r.error_type, "usage");
  assert.match(r.error ?? "", /timeout/);
});

test("working_dir: inside the root is used; outside (.., absolute, symlink) is refused", async () => {
  const { root, ws } = devWorkspace({ "sub/x.txt": "x\n" });
  const outside = tempTree({ "o.txt": "o\n" });
  fs.symlinkSync(outside, path.join(root, "escape"));
  const inside = await callTool(ws, "bash", { command: "pwd; ls", working_dir: "sub" });
  assert.equal(inside.success, true);
  assert.equal(inside.stdout, `${path.join(root, "sub")}\nx.txt\n`);
  for (const dir of ["..", outside, "escape", "sub/../.."]) {
    const r = await callTool(ws, "bash", { command: "touch should-not-exist", working_dir: dir });
    assert.equal(r.success, false, dir);
    assert.match(r.error ?? "", /outside the workspace root/, dir);
  }
  assert.equal(fs.existsSync(path.join(outside, "should-not-exist")), false);
  const missing = await callTool(ws, "bash", { command: "true", working_dir: "nope" });
  assert.match(missing.error ?? "", /no such directory/);
});

test("long output is cut keeping head and tail; the full text is saved under .rt/shell/", async () => {
  const { root, ws } = devWorkspace();
  const r = await callTool(ws, "bash", { command: "seq 1 100000; seq 1 20000 >&2" });
  assert.equal(r.success, true);
  assert.equal(r.truncated, true);
  const stdout = String(r.stdout);
  assert.ok(Buffer.byteLength(stdout) < BASH_MAX_OUTPUT_BYTES + 500);
  assert.ok(stdout.startsWith("1\n2\n3\n"));
  assert.ok(stdout.endsWith("99999\n100000\n"));
  assert.match(
    stdout,
    /\[\.\.\. [\d,]+ bytes \(about [\d,]+ lines\) cut here; full text \([\d,]+ bytes\) saved to \.rt\/shell\/[\w-]+\.stdout\.txt \.\.\.\]/,
  );
  const saved = r.saved_output as string[];
  assert.equal(saved.length, 2);
  const full = fs.readFileSync(path.join(root, saved[0]), "utf8");
  assert.equal(full, spawnSync("seq", ["1", "100000"], { encoding: "utf8" }).stdout);
  const fullErr = fs.readFileSync(path.join(root, saved[1]), "utf8");
  assert.equal(fullErr.split("\n").length, 20001);
  // The state directory ignores itself in git.
  assert.equal(fs.readFileSync(path.join(root, ".rt/.gitignore"), "utf8"), "*\n");
});

test("with the state directory off, cut output says it was not saved", async () => {
  const root = tempTree();
  const ws = createWorkspace({ root, profile: "dev", env: { ...process.env, RT_STATE: "off" } });
  const r = await callTool(ws, "bash", { command: "seq 1 100000" });
  assert.equal(r.truncated, true);
  assert.match(String(r.stdout), /not saved \(rt's state directory is off/);
  assert.equal(fs.existsSync(path.join(root, ".rt")), false);
});

test("background shell: id at once, new output since the last read, filter, exit status", async () => {
  const { ws } = devWorkspace();
  const start = await callTool(ws, "bash", {
    command: "for i in 1 2 3 4 5 6; do echo line$i; echo err$i >&2; sleep 0.1; done; echo done",
    background: true,
  });
  assert.equal(start.success, true);
  const id = start.id as string;
  assert.match(id, /^bash_\d+$/);
  assert.match(start.output, /bash_output/);
  let first = await callTool(ws, "bash_output", { id });
  for (let i = 0; i < 50 && !/line1/.test(String(first.stdout)); i++) {
    await sleep(50);
    first = await callTool(ws, "bash_output", { id });
  }
  assert.equal(first.success, true);
  assert.match(String(first.stdout), /^line1\n/);
  await sleep(1500); // the loop takes about 0.7 s
  const second = await callTool(ws, "bash_output", { id, filter: "^line[246]$|done" });
  assert.equal(second.running, false);
  assert.equal(second.exit_code, 0);
  assert.doesNotMatch(String(second.stdout), /line1/, "old output is not repeated");
  assert.doesNotMatch(String(second.stdout) + String(second.stderr), /line5|err/, "filtered lines are left out");
  assert.match(String(second.stdout), /line6\ndone/);
  assert.match(second.output, /lines did not match the filter/);
  const third = await callTool(ws, "bash_output", { id });
  assert.match(third.output, /\(no new output\)/);
  const bad = await callTool(ws, "bash_output", { id, filter: "(" });
  assert.match(bad.error ?? "", /not a valid regular expression/);
});

test("kill_shell ends a background shell and everything it started", async () => {
  const { ws } = devWorkspace();
  const marker = `rt-bg-kill-${process.pid}-${Date.now()}`;
  const start = await callTool(ws, "bash", { command: `echo up; sh -c 'sleep 300; : ${marker}'`, background: true });
  const id = start.id as string;
  await sleep(200);
  assert.ok(processesWith(marker).length > 0);
  const k = await callTool(ws, "kill_shell", { id });
  assert.equal(k.success, true);
  assert.equal(k.was_running, true);
  assert.ok(await gone(marker));
  const after = await callTool(ws, "bash_output", { id });
  assert.equal(after.running, false);
  assert.match(after.output, /up/);
  const again = await callTool(ws, "kill_shell", { id });
  assert.match(again.output, /had already ended/);
  const unknown = await callTool(ws, "kill_shell", { id: "bash_999" });
  assert.match(unknown.error ?? "", /no background shell "bash_999"/);
});

test("sandboxed background shell in safe-read-only", async () => {
  const tree = researchTree();
  const ws = tree.workspace();
  const start = await callTool(ws, "bash", {
    command: 'grep -c ERROR logs/app.log; python3 -c \'open("x", "w")\'; sleep 30',
    background: true,
  });
  assert.equal(start.sandboxed, true);
  let seen = "";
  for (let i = 0; i < 100 && !/Read-only file system/.test(seen); i++) {
    await sleep(100);
    seen += (await callTool(ws, "bash_output", { id: start.id })).output;
  }
  assert.match(seen, /--- stdout ---\n40\n/);
  assert.match(seen, /Read-only file system/);
  await callTool(ws, "kill_shell", { id: start.id });
  const refused = await callTool(ws, "bash", { command: "rm -rf logs", background: true });
  assert.equal(refused.error_type, "denied");
});

test("background shells are killed when the process that owns them exits", async () => {
  const marker = `rt-owner-exit-${process.pid}-${Date.now()}`;
  const root = tempTree();
  for (const profile of ["dev", "safe-read-only"]) {
    const script = `
      import { createWorkspace } from ${JSON.stringify(path.join(REPO, "src/workspace/workspace.ts"))};
      import { callTool } from ${JSON.stringify(path.join(REPO, "src/tools/policy.ts"))};
      const ws = createWorkspace({ root: ${JSON.stringify(root)}, profile: ${JSON.stringify(profile)} });
      const r = await callTool(ws, "bash", { command: "sh -c 'sleep 300; : ${marker}-${profile}'", background: true });
      if (!r.success) { console.error(r.error); process.exit(3); }
      await new Promise((res) => setTimeout(res, 300));
      console.log("started", r.id);
    `;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stdout, /started bash_1/);
    assert.ok(await gone(`${marker}-${profile}`), `${profile}: background shell survived its owner`);
  }
});

test("safe-read-only: bash is allowed (it enforces read-only itself) and runs sandboxed", async () => {
  const tree = researchTree();
  const r = await callTool(tree.workspace(), "bash", { command: "git log --oneline | wc -l" });
  assert.equal(r.success, true, r.error);
  assert.equal(r.sandboxed, true);
  assert.equal(String(r.stdout).trim(), "2");
  assert.match(r.output, /sandboxed/);
});

test("dev with --sandbox: sandboxed and checked; unsafe: never sandboxed", async () => {
  const root = tempTree({ "f.txt": "x\n" });
  const sandboxed = createWorkspace({ root, profile: "dev", sandbox: true });
  const refused = await callTool(sandboxed, "bash", { command: "rm f.txt" });
  assert.equal(refused.error_type, "denied");
  assert.match(refused.error ?? "", /because of --sandbox/);
  const os = await callTool(sandboxed, "bash", { command: 'python3 -c \'open("f.txt", "w")\'' });
  assert.match(String(os.stderr), /Read-only file system/);
  assert.equal(fs.readFileSync(path.join(root, "f.txt"), "utf8"), "x\n");
  const unsafe = createWorkspace({ root, profile: "unsafe", sandbox: true });
  const r = await callTool(unsafe, "bash", { command: "echo y > g.txt" });
  assert.equal(r.success, true);
  assert.equal(r.sandboxed, false);
  assert.equal(fs.readFileSync(path.join(root, "g.txt"), "utf8"), "y\n");
});

test("safe-read-only without a working bubblewrap refuses to run anything and says how to install it", async () => {
  const root = tempTree();
  const marker = path.join(root, "ran");
  resetSandboxProbe();
  const missing = createWorkspace({
    root,
    profile: "safe-read-only",
    env: { ...process.env, RT_BWRAP: "/nonexistent/bwrap" },
  });
  const r = await callTool(missing, "bash", { command: `echo > ${marker}; true` });
  assert.equal(r.success, false);
  assert.equal(r.error_type, "denied");
  assert.equal(r.sandbox_unavailable, true);
  assert.match(r.error ?? "", /apt-get install bubblewrap/);
  assert.match(r.error ?? "", /never runs them unsandboxed/);
  const legit = await callTool(missing, "bash", { command: "true" });
  assert.equal(legit.success, false, "even harmless commands do not run without the sandbox");

  // A bwrap that cannot create namespaces (as in a locked-down container).
  // (outside the root: a bwrap inside the workspace is never run, see bwrap-lookup.test.ts)
  const fake = path.join(tempTree({}, "rt-fake-bwrap-"), "fake-bwrap");
  fs.writeFileSync(
    fake,
    "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces' >&2\nexit 1\n",
    { mode: 0o755 },
  );
  const broken = createWorkspace({ root, profile: "safe-read-only", env: { ...process.env, RT_BWRAP: fake } });
  const b = await callTool(broken, "bash", { command: "true" });
  assert.equal(b.error_type, "denied");
  assert.match(b.error ?? "", /cannot create the namespaces/);
  assert.match(b.error ?? "", /No permissions to creating new namespace/);
  assert.equal(fs.existsSync(marker), false);

  // The dev profile without --sandbox does not need bubblewrap.
  const dev = createWorkspace({ root, profile: "dev", env: { ...process.env, RT_BWRAP: "/nonexistent/bwrap" } });
  assert.equal((await callTool(dev, "bash", { command: "true" })).success, true);
  resetSandboxProbe();
});
