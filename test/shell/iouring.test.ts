// io_uring and the sandbox (issue 9): io_uring performs system calls inside the
// kernel on a program's behalf, where the seccomp filter does not see them one
// by one. IORING_OP_SOCKET made an AF_UNIX socket (which socket() may not) and
// reached a host daemon's socket in the workspace. The filter now refuses
// io_uring_setup, io_uring_enter and io_uring_register.
//
// The attack is a small C program (corpus/io_uring.c, raw system calls),
// compiled here with gcc. The daemon is a real Unix-socket server in the
// workspace that counts what reaches it. Each case is first shown to work
// where the filter is absent (on the host, and inside bubblewrap without the
// filter), so the test can fail; then it must fail with the filter.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { startCommand } from "../../src/shell/runner.ts";
import {
  bwrapArgs,
  candidateStrategies,
  findBwrap,
  probeStrategy,
  type BwrapFeatures,
  type SandboxSpec,
  type SandboxStrategy,
} from "../../src/shell/sandbox.ts";
import { seccompFilter } from "../../src/shell/seccomp.ts";

const root = tempTree({ "data.txt": "original\n" });
const program = path.join(root, "io_uring");
const socketPath = path.join(root, "daemon.sock");
const received: string[] = [];
let daemon: net.Server;

before(async () => {
  execFileSync("gcc", ["-O1", "-o", program, fileURLToPath(new URL("./corpus/io_uring.c", import.meta.url))], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  daemon = net.createServer((s) => {
    let text = "";
    s.on("data", (c) => (text += c));
    s.on("close", () => received.push(text));
  });
  await new Promise<void>((r) => daemon.listen(socketPath, r));
});
after(() => daemon?.close());

const bwrap = findBwrap(process.env.RT_BWRAP, undefined).bwrap;
const help = bwrap ? execFileSync(bwrap, ["--help"], { encoding: "utf8" }) : "";
const features: BwrapFeatures = { disableUserns: help.includes("--disable-userns"), size: help.includes("--size") };
const strategies: SandboxStrategy[] = [];
if (bwrap) for (const s of candidateStrategies()) if ((await probeStrategy(bwrap, s, features)).ok) strategies.push(s);

/** Runs `argv` directly, with exit code and both streams. */
function runDirect(argv: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const c = spawn(argv[0], argv.slice(1), { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    c.stdout.on("data", (d) => (out += d));
    c.stderr.on("data", (d) => (out += d));
    c.on("close", (code) => resolve({ code, out }));
  });
}

/** Runs a command in rt's sandbox (with its seccomp filter), or in the same bubblewrap sandbox without the filter. */
function runSandboxed(
  command: string,
  strategy: SandboxStrategy,
  withFilter: boolean,
): Promise<{ code: number | null; out: string }> {
  const spec: SandboxSpec = { bwrap: bwrap!, strategy, root, cwd: root, allowNet: false, features };
  if (withFilter) {
    let out = "";
    return startCommand({
      command,
      cwd: root,
      env: process.env,
      sandbox: spec,
      timeoutMs: 20_000,
      onData: (_s, c) => (out += c),
    }).done.then((e) => ({ code: e.exitCode, out }));
  }
  return runDirect([bwrap!, ...bwrapArgs(spec), "--", "/bin/sh", "-c", command]);
}

async function waitForDaemon(n: number): Promise<void> {
  for (let i = 0; i < 100 && received.length < n; i++) await new Promise((r) => setTimeout(r, 20));
}

test("the filter refuses the three io_uring system calls on x86-64 and arm64, with EPERM like the rest", () => {
  for (const arch of ["x64", "arm64"] as const) {
    const f = seccompFilter(arch)!;
    const insns = Array.from({ length: f.length / 8 }, (_, i) => ({
      code: f.readUInt16LE(i * 8),
      jt: f.readUInt8(i * 8 + 2),
      k: f.readUInt32LE(i * 8 + 4),
    }));
    for (const nr of [425, 426, 427]) {
      const i = insns.findIndex((x) => x.code === 0x15 && x.k === nr);
      assert.ok(i > 0, `${arch}: no comparison with system call ${nr}`);
      const target = insns[i + 1 + insns[i].jt];
      assert.equal(target.code, 0x06, `${arch}: ${nr} does not jump to a return`);
      assert.equal(target.k, 0x00050001, `${arch}: ${nr} is not refused with EPERM`);
    }
  }
});

test("bubblewrap can create its namespaces here", () => {
  assert.ok(bwrap, "bwrap is not installed");
  assert.ok(strategies.length > 0);
});

test("on this kernel, outside the sandbox, io_uring works: an AF_UNIX socket reaches the daemon, and a file is written", async () => {
  const setup = await runDirect([program, "setup"]);
  assert.equal(
    setup.out.trim(),
    "io_uring_setup: ok",
    "io_uring is disabled on this kernel (kernel.io_uring_disabled?): the cases below would prove nothing",
  );
  const before = received.length;
  const s = await runDirect([program, "socket", socketPath, "host-check"]);
  assert.equal(s.code, 0, s.out);
  await waitForDaemon(before + 1);
  assert.ok(received.includes("host-check"), `the daemon heard: ${JSON.stringify(received)}`);
  const scratch = path.join(tempTree(), "w.txt");
  const w = await runDirect([program, "write", scratch, "written through io_uring"]);
  assert.equal(w.code, 0, w.out);
  assert.equal(fs.readFileSync(scratch, "utf8"), "written through io_uring");
});

for (const strategy of strategies) {
  test(`${strategy}: without the filter the sandbox lets io_uring reach the daemon; with it, io_uring_setup fails with EPERM and nothing is reached or written`, async () => {
    // Without the filter: the read-only mounts and namespaces do not stop it.
    const before = received.length;
    const open = await runSandboxed(`${program} socket ${socketPath} unfiltered-${strategy}`, strategy, false);
    assert.equal(open.code, 0, open.out);
    await waitForDaemon(before + 1);
    assert.ok(received.includes(`unfiltered-${strategy}`), "without the filter the io_uring socket reached the daemon");
    const tmpWrite = await runSandboxed(`${program} write /tmp/w.txt scratch && cat /tmp/w.txt`, strategy, false);
    assert.equal(tmpWrite.code, 0, tmpWrite.out);
    assert.match(tmpWrite.out, /scratch$/);

    // With rt's filter.
    const count = received.length;
    const setup = await runSandboxed(`${program} setup`, strategy, true);
    assert.equal(setup.out.trim(), "io_uring_setup: errno 1 (Operation not permitted)");
    const sock = await runSandboxed(`${program} socket ${socketPath} filtered-${strategy}`, strategy, true);
    assert.notEqual(sock.code, 0);
    assert.match(sock.out, /io_uring_setup: Operation not permitted/);
    const write = await runSandboxed(`${program} write ${path.join(root, "data.txt")} pwned`, strategy, true);
    assert.notEqual(write.code, 0);
    assert.match(write.out, /io_uring_setup: Operation not permitted/);
    // Plain socket(AF_UNIX) stays refused as before.
    const plain = await runSandboxed(
      `python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("${socketPath}"); s.sendall(b"plain")'`,
      strategy,
      true,
    );
    assert.match(plain.out, /Operation not permitted/);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(received.length, count, `the daemon heard: ${JSON.stringify(received.slice(count))}`);
    assert.equal(fs.readFileSync(path.join(root, "data.txt"), "utf8"), "original\n");
  });
}

test("through the bash tool in safe-read-only: the io_uring attacks fail with the OS's error and reach nothing", async () => {
  const ws = createWorkspace({ root, profile: "safe-read-only" });
  const count = received.length;
  for (const command of [
    `${program} socket ${socketPath} via-tool`,
    `${program} write data.txt pwned`,
    `./io_uring write /tmp/x scratch`,
  ]) {
    const r = await callTool(ws, "bash", { command });
    assert.equal(r.success, false, `${command}: ${r.output}`);
    assert.equal(r.sandboxed, true, `${command}: ${r.error}`);
    assert.match(String(r.stderr), /io_uring_setup: Operation not permitted/, command);
  }
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(received.length, count);
  assert.equal(fs.readFileSync(path.join(root, "data.txt"), "utf8"), "original\n");
});
