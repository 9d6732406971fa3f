// The read-only sandbox: bubblewrap (`bwrap`, Debian package `bubblewrap`).
//
// What a sandboxed command gets (see README "Shell and the read-only sandbox"):
//   - the whole filesystem mounted read-only (`--ro-bind / /`): every write
//     fails with the kernel's own EROFS, "Read-only file system";
//   - a private, empty, writable /tmp (a tmpfs of SANDBOX_TMP_MAX_BYTES), and
//     private /run and /dev (only null, zero, full, random, urandom, tty, shm);
//     the workspace is bound back read-only if it lives under /tmp or /run;
//   - a new PID namespace (it sees and can signal only its own processes), new
//     IPC and UTS namespaces, and a new network namespace with only loopback
//     unless --allow-net;
//   - a fresh /proc remounted read-only (no sysctl writes even as root);
//   - no capabilities (`--cap-drop ALL`), `--die-with-parent` (it dies with
//     rt, even if rt is killed), and its own session and process group (rt
//     starts bwrap detached: no controlling terminal to inject keystrokes
//     into), killed whole on timeout or kill_shell. bwrap's own --new-session
//     is not used: it would move the sandbox out of that process group;
//   - a seccomp filter (seccomp.ts) refusing Unix-domain sockets and kernel
//     keyrings, which a read-only mount does not cover.
// Two ways of creating the namespaces are tried, in order: a user namespace
// (works unprivileged; as root it maps root to itself, and `--disable-userns`
// stops nested ones), then, only when rt runs as root, the same namespaces
// without a user namespace (for hosts where user namespaces are disabled).
// When neither works the sandbox is unavailable and callers must refuse to run.
import { packageRoot } from "../packageRoot.js";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { SANDBOX_PROBE_TIMEOUT_MS, SANDBOX_TMP_MAX_BYTES } from "../limits.js";
import { seccompFilter } from "./seccomp.js";

export type SandboxStrategy = "userns" | "root";

export interface SandboxSpec {
  /** Path of the bwrap executable. */
  bwrap: string;
  strategy: SandboxStrategy;
  /** Workspace root: bound back read-only when a private directory would hide it. */
  root: string;
  /** Working directory of the command (inside the root). */
  cwd: string;
  allowNet: boolean;
  /** bwrap supports --disable-userns (0.8+) and --size (0.9+ / Debian 0.8). */
  features: BwrapFeatures;
}

export interface BwrapFeatures {
  disableUserns: boolean;
  size: boolean;
}

/** Directories replaced by private, empty, writable tmpfs mounts. */
const PRIVATE_DIRS = ["/tmp", "/run"];

function isWithin(dir: string, p: string): boolean {
  return p === dir || p.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/** rt's own install directory (dist/, node_modules/), or the root directory when it cannot be found. */
function ownPackage(): string {
  try {
    return realOr(packageRoot());
  } catch {
    return "/";
  }
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** The bwrap command line (everything before `--`), given the fd the seccomp filter is read from. */
export function bwrapArgs(spec: SandboxSpec, seccompFd?: number): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc"];
  const hidden: string[] = [];
  for (const dir of PRIVATE_DIRS) {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (!st.isDirectory()) continue; // e.g. /run as a symlink: leave it (read-only)
    if (dir === "/tmp" && spec.features.size) args.push("--size", String(SANDBOX_TMP_MAX_BYTES));
    args.push("--tmpfs", dir);
    hidden.push(dir);
  }
  // Bind back what the private directories would hide: the workspace, rt itself
  // (commands run `rt`, which may be installed under /tmp), and DNS when the network is on.
  const rebind = [spec.root, ownPackage()];
  if (spec.allowNet) rebind.push(realOr("/etc/resolv.conf"));
  for (const p of rebind) {
    if (hidden.some((d) => isWithin(d, p) && p !== d) && fs.existsSync(p)) args.push("--ro-bind", p, p);
  }
  if (spec.strategy === "userns") {
    args.push("--unshare-user");
    if (spec.features.disableUserns) args.push("--disable-userns");
  }
  args.push("--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try");
  if (!spec.allowNet) args.push("--unshare-net");
  args.push("--die-with-parent", "--cap-drop", "ALL");
  if (seccompFd !== undefined) args.push("--seccomp", String(seccompFd));
  args.push("--setenv", "TMPDIR", "/tmp", "--chdir", spec.cwd);
  return args;
}

/** The seccomp program for this machine (undefined on architectures seccomp.ts does not know). */
export function sandboxSeccomp(): Buffer | undefined {
  return seccompFilter();
}

/** Finds bwrap: RT_BWRAP (a path) if set, else the PATH. */
export function findBwrap(env: NodeJS.ProcessEnv): string | undefined {
  if (env.RT_BWRAP !== undefined && env.RT_BWRAP !== "") {
    return fs.existsSync(env.RT_BWRAP) ? env.RT_BWRAP : undefined;
  }
  for (const dir of (env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(":")) {
    if (!dir) continue;
    const p = path.join(dir, "bwrap");
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

export type SandboxProbe =
  | { available: true; bwrap: string; strategy: SandboxStrategy; features: BwrapFeatures }
  | { available: false; reason: string };

export const INSTALL_HINT =
  "Install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora, RHEL), apk add bubblewrap (Alpine), pacman -S bubblewrap (Arch); or point RT_BWRAP at a bwrap executable";

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], input?: Buffer): Promise<Ran> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe", "pipe"] });
    } catch (e) {
      resolve({ code: null, stdout: "", stderr: (e as Error).message });
      return;
    }
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), SANDBOX_PROBE_TIMEOUT_MS);
    child.stdout!.on("data", (c) => (stdout += c));
    child.stderr!.on("data", (c) => (stderr += c));
    const extra = child.stdio[3] as import("node:stream").Writable | null;
    extra?.on("error", () => {});
    if (input && extra) extra.end(input);
    else extra?.end();
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: stderr || e.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function features(bwrap: string): Promise<BwrapFeatures> {
  const help = await run(bwrap, ["--help"]);
  const text = help.stdout + help.stderr;
  return { disableUserns: text.includes("--disable-userns"), size: text.includes("--size") };
}

/** The strategies worth trying here, in order of preference. */
export function candidateStrategies(uid: number | undefined = process.getuid?.()): SandboxStrategy[] {
  return uid === 0 ? ["userns", "root"] : ["userns"];
}

/**
 * Runs `true` inside the sandbox with each strategy until one works. The
 * answer is cached per bwrap path for the life of the process.
 */
const probes = new Map<string, Promise<SandboxProbe>>();

export function probeSandbox(env: NodeJS.ProcessEnv): Promise<SandboxProbe> {
  const bwrap = findBwrap(env);
  if (!bwrap) {
    const where = env.RT_BWRAP ? `RT_BWRAP=${env.RT_BWRAP} does not exist` : "bwrap is not on the PATH";
    return Promise.resolve({ available: false, reason: `bubblewrap is not installed (${where}). ${INSTALL_HINT}.` });
  }
  let pending = probes.get(bwrap);
  if (!pending) {
    pending = (async (): Promise<SandboxProbe> => {
      const feats = await features(bwrap);
      const failures: string[] = [];
      for (const strategy of candidateStrategies()) {
        const r = await probeStrategy(bwrap, strategy, feats);
        if (r.ok) return { available: true, bwrap, strategy, features: feats };
        failures.push(`${strategy === "userns" ? "with a user namespace" : "without a user namespace (as root)"}: ${r.error}`);
      }
      return {
        available: false,
        reason:
          `bubblewrap (${bwrap}) is installed but cannot create the namespaces the sandbox needs here (${failures.join("; ")}). ` +
          "User namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), " +
          "or a container forbids them (docker run --security-opt seccomp=unconfined --cap-add SYS_ADMIN, or --privileged).",
      };
    })();
    probes.set(bwrap, pending);
  }
  return pending;
}

/** Tries one strategy: runs `true` in the full sandbox. */
export async function probeStrategy(bwrap: string, strategy: SandboxStrategy, feats: BwrapFeatures): Promise<{ ok: true } | { ok: false; error: string }> {
  const filter = sandboxSeccomp();
  const spec: SandboxSpec = { bwrap, strategy, root: "/", cwd: "/", allowNet: false, features: feats };
  const r = await run(bwrap, [...bwrapArgs(spec, filter ? 3 : undefined), "--", "true"], filter);
  if (r.code === 0) return { ok: true };
  return { ok: false, error: (r.stderr.trim().split("\n").pop() ?? "").trim() || `exit code ${r.code}` };
}

/** Forgets cached probe results (tests). */
export function resetSandboxProbe(): void {
  probes.clear();
}
