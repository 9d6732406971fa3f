// Attacks on the read-only sandbox that the first round of tests did not try.
//
// AF_VSOCK: the sandbox's "no network" is a new network namespace with only
// loopback. Virtual sockets (AF_VSOCK: virtio-vsock under KVM and Firecracker,
// Hyper-V sockets under WSL2, VMware's VMCI) are not part of any network
// namespace: a sandboxed command could still open a connection to the
// hypervisor host (CID 2) and whatever listens there (guest agents, a VM
// manager's proxy, WSL's services), or to a vsock server of the same machine,
// without --allow-net. The seccomp filter refuses socket(AF_VSOCK) as it
// refuses socket(AF_UNIX).
//
// Each case first shows what happens without the filter (the same bubblewrap
// sandbox, namespaces and all), so the test fails where the hole is open.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { tempTree } from "../helpers.ts";
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
const bwrap = findBwrap(process.env.RT_BWRAP, undefined).bwrap;
const help = bwrap ? execFileSync(bwrap, ["--help"], { encoding: "utf8" }) : "";
const features: BwrapFeatures = { disableUserns: help.includes("--disable-userns"), size: help.includes("--size") };
const strategies: SandboxStrategy[] = [];
if (bwrap) for (const s of candidateStrategies()) if ((await probeStrategy(bwrap, s, features)).ok) strategies.push(s);

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
  return new Promise((resolve) => {
    const c = spawn(bwrap!, [...bwrapArgs(spec), "--", "/bin/sh", "-c", command], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    c.stdout.on("data", (d) => (out += d));
    c.stderr.on("data", (d) => (out += d));
    c.on("close", (code) => resolve({ code, out }));
  });
}

// Opens an AF_VSOCK stream socket and tries the hypervisor host (CID 2): prints how far it got.
const VSOCK_PROBE = `python3 -c '
import socket, errno
try:
    s = socket.socket(40, socket.SOCK_STREAM)
except OSError as e:
    print("socket:", errno.errorcode.get(e.errno, e.errno)); raise SystemExit
s.settimeout(2)
try:
    s.connect((2, 9999)); print("connect: connected")
except OSError as e:
    print("connect:", errno.errorcode.get(e.errno, e.errno) if e.errno else "timeout")
'`;

/** Whether this kernel has vsock at all (outside any sandbox). */
function vsockHere(): boolean {
  try {
    return !execFileSync("sh", ["-c", VSOCK_PROBE], { encoding: "utf8" }).startsWith("socket:");
  } catch {
    return false;
  }
}

test("the filter refuses socket(AF_VSOCK) on x86-64 and arm64, with EPERM", () => {
  for (const arch of ["x64", "arm64"] as const) {
    const f = seccompFilter(arch)!;
    const insns = Array.from({ length: f.length / 8 }, (_, i) => ({
      code: f.readUInt16LE(i * 8),
      jt: f.readUInt8(i * 8 + 2),
      k: f.readUInt32LE(i * 8 + 4),
    }));
    // After the socket() branch loads its first argument (the family), a comparison with 40 jumps to EPERM.
    const loadArg0 = insns.findIndex((x) => x.code === 0x20 && x.k === 16);
    assert.ok(loadArg0 > 0, `${arch}: the filter never looks at socket()'s family`);
    const i = insns.findIndex((x, k) => k > loadArg0 && x.code === 0x15 && x.k === 40);
    assert.ok(i > 0, `${arch}: no comparison with AF_VSOCK (40)`);
    const target = insns[i + 1 + insns[i].jt];
    assert.equal(target.code, 0x06);
    assert.equal(target.k, 0x00050001, `${arch}: AF_VSOCK is not refused with EPERM`);
  }
});

for (const strategy of strategies) {
  test(`${strategy}: no virtual sockets out of the sandbox's network namespace (AF_VSOCK)`, {
    skip: !vsockHere() && "this kernel has no vsock",
  }, async () => {
    // Without the filter the namespace does not stop it: the socket opens and the connection reaches the host's transport.
    const open = await runSandboxed(VSOCK_PROBE, strategy, false);
    assert.doesNotMatch(
      open.out,
      /^socket:/m,
      `vsock was not usable in bubblewrap even without the filter: ${open.out}`,
    );
    const filtered = await runSandboxed(VSOCK_PROBE, strategy, true);
    assert.match(filtered.out, /^socket: EPERM$/m, `a sandboxed command opened a vsock socket: ${filtered.out}`);
  });
}
