// What the sandbox guarantees, checked directly through the runner (no
// structural check in the way), with every namespace strategy that works on
// this machine: read-only filesystem, private /tmp, no network unless
// allowNet, own PID namespace, read-only /proc, no capabilities, no Unix
// sockets, no nested user namespaces.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { researchTree } from "./fixture.ts";
import { startCommand } from "../../src/shell/runner.ts";
import { packageRoot } from "../../src/base/packageRoot.ts";
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

const bwrap = findBwrap(process.env.RT_BWRAP, undefined).bwrap;
const help = bwrap ? execFileSync(bwrap, ["--help"], { encoding: "utf8" }) : "";
const features: BwrapFeatures = { disableUserns: help.includes("--disable-userns"), size: help.includes("--size") };
const strategies: SandboxStrategy[] = [];
if (bwrap) for (const s of candidateStrategies()) if ((await probeStrategy(bwrap, s, features)).ok) strategies.push(s);

const tree = researchTree();
const before = tree.hash();
after(() => assert.equal(tree.hash(), before, "the sandbox tests changed the tree"));

async function run(command: string, strategy: SandboxStrategy, extra: Partial<SandboxSpec> = {}) {
  let stdout = "";
  let stderr = "";
  const spec: SandboxSpec = {
    bwrap: bwrap!,
    strategy,
    root: tree.repo,
    cwd: tree.repo,
    allowNet: false,
    features,
    ...extra,
  };
  const exit = await startCommand({
    command,
    cwd: spec.cwd,
    env: tree.env,
    sandbox: spec,
    timeoutMs: 20_000,
    onData: (s, c) => (s === "stdout" ? (stdout += c) : (stderr += c)),
  }).done;
  return { code: exit.exitCode, stdout, stderr };
}

test("bwrap command line: read-only root, private /tmp and /run, namespaces, no capabilities, seccomp", () => {
  const spec: SandboxSpec = {
    bwrap: "/usr/bin/bwrap",
    strategy: "userns",
    root: "/srv/project",
    cwd: "/srv/project/sub",
    allowNet: false,
    features: { disableUserns: true, size: true },
  };
  const args = bwrapArgs(spec, 3).join(" ");
  assert.match(args, /^--ro-bind \/ \/ --dev \/dev --proc \/proc --remount-ro \/proc /);
  assert.match(args, /--tmpfs \/tmp/);
  assert.match(
    args,
    /--unshare-user --disable-userns --unshare-ipc --unshare-pid --unshare-uts --unshare-cgroup-try --unshare-net --die-with-parent --cap-drop ALL --seccomp 3/,
  );
  assert.match(args, /--chdir \/srv\/project\/sub$/);
  assert.doesNotMatch(args, /--ro-bind \/srv/, "a root outside the private directories is not bound again");
  const root = bwrapArgs({ ...spec, strategy: "root", allowNet: true }).join(" ");
  assert.doesNotMatch(root, /--unshare-user|--unshare-net|--seccomp/);
  const tmpRoot = fs.realpathSync(fs.mkdtempSync("/tmp/rt-sbx-args-"));
  try {
    const underTmp = bwrapArgs({ ...spec, root: tmpRoot });
    const i = underTmp.indexOf("/tmp");
    const j = underTmp.indexOf(tmpRoot);
    assert.ok(i !== -1 && j > i, "a root under /tmp is bound back after the private /tmp is mounted");
    assert.deepEqual(underTmp.slice(j - 1, j + 2), ["--ro-bind", tmpRoot, tmpRoot]);
    // rt's own install directory is bound back too when it lives under /tmp (a CI checkout, say).
    const own = fs.realpathSync(packageRoot());
    const ownBound = underTmp.some((a, k) => a === "--ro-bind" && underTmp[k + 1] === own && underTmp[k + 2] === own);
    assert.equal(ownBound, own.startsWith("/tmp/") || own.startsWith("/run/"));
  } finally {
    fs.rmSync(tmpRoot, { recursive: true, force: true });
  }
});

test("seccomp filter: a valid BPF program for this machine's architecture", () => {
  const f = seccompFilter("x64")!;
  assert.equal(f.length % 8, 0);
  assert.equal(f.readUInt16LE(0), 0x20); // load arch
  assert.equal(f.readUInt32LE(f.length - 4), 0x80000000); // last: kill the process
  assert.ok(seccompFilter("arm64"));
  assert.equal(seccompFilter("ia32"), undefined);
});

test("bubblewrap can create its namespaces here", () => {
  assert.ok(bwrap, "bwrap is not installed: apt-get install bubblewrap");
  assert.ok(strategies.length > 0);
});

for (const strategy of strategies) {
  test(`${strategy}: every write outside the private /tmp fails with the kernel's EROFS`, async () => {
    for (const target of [
      path.join(tree.repo, "x"),
      path.join(tree.repo, ".git/config"),
      path.join(tree.home, ".bashrc"),
      path.join(tree.outside, "target.txt"),
      "/etc/rt-sandbox-test",
      "/usr/rt-sandbox-test",
      "/var/tmp/rt-sandbox-test",
    ]) {
      const r = await run(`echo x >> ${target}`, strategy);
      assert.notEqual(r.code, 0, target);
      assert.match(r.stderr, /Read-only file system/, target);
    }
  });

  test(`${strategy}: /tmp is private, empty and writable, and gone afterwards`, async () => {
    const hostFile = path.join(os.tmpdir(), `rt-host-${process.pid}`);
    fs.writeFileSync(hostFile, "host");
    try {
      const r = await run(
        `ls /tmp; test -e ${hostFile} && echo visible; echo scratch > /tmp/s && cat /tmp/s`,
        strategy,
      );
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /visible/);
      assert.match(r.stdout, /scratch/);
      assert.equal(fs.existsSync("/tmp/s"), false);
    } finally {
      fs.rmSync(hostFile, { force: true });
    }
  });

  test(`${strategy}: no network without allowNet; the host's loopback is reachable with it`, async () => {
    let connections = 0;
    const server = net.createServer((s) => {
      connections++;
      s.end("hello from the host\n");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const script = `python3 -c 'import socket; s=socket.create_connection(("127.0.0.1", ${port}), 5); print(s.recv(100).decode())'`;
      const off = await run(script, strategy);
      assert.notEqual(off.code, 0);
      assert.match(off.stderr, /Connection refused|Network is unreachable/);
      assert.equal(connections, 0);
      const on = await run(script, strategy, { allowNet: true });
      assert.equal(on.code, 0, on.stderr);
      assert.match(on.stdout, /hello from the host/);
      assert.equal(connections, 1);
    } finally {
      server.close();
    }
  });

  test(`${strategy}: its own PID namespace; /proc read-only; no capabilities`, async () => {
    const r = await run(
      "ps -e --no-headers | wc -l; cat /proc/1/comm; grep CapEff /proc/self/status; echo 10 > /proc/sys/vm/swappiness",
      strategy,
    );
    const [count, init, cap] = r.stdout.trim().split("\n");
    assert.ok(Number(count) < 10, `${count} processes visible`);
    assert.equal(init, "bwrap");
    assert.match(cap, /CapEff:\s+0+$/);
    assert.match(r.stderr, /Read-only file system/);
  });

  test(`${strategy}: no Unix-domain sockets (a daemon would write for us), socketpair still works`, async () => {
    const r = await run(
      `python3 -c '
import socket
print(len(socket.socketpair()))
try:
    socket.socket(socket.AF_UNIX)
except OSError as e:
    print("unix:", e.strerror)
'`,
      strategy,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^2\nunix: Operation not permitted$/m);
  });

  test(`${strategy}: no way back to a writable filesystem (nested namespaces, remount, chroot)`, async () => {
    const r = await run(
      "unshare -r -m sh -c 'mount -o remount,rw / && touch /pwned'; mount -o remount,rw /; chroot / true; echo end",
      strategy,
    );
    assert.match(r.stdout, /end/);
    assert.doesNotMatch(r.stderr, /^$/);
    assert.equal(fs.existsSync("/pwned"), false);
  });
}
