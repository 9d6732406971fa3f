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
//   - a seccomp filter (seccomp.ts) refusing Unix-domain sockets, virtual
//     sockets (AF_VSOCK: no network namespace covers them), kernel keyrings and
//     io_uring, which a read-only mount does not cover.
// Two ways of creating the namespaces are tried, in order: a user namespace
// (works unprivileged; as root it maps root to itself, and `--disable-userns`
// stops nested ones), then, only when rt runs as root, the same namespaces
// without a user namespace (for hosts where user namespaces are disabled).
// When neither works the sandbox is unavailable and callers must refuse to run.
// The answer is kept per user on disk (probeSandbox below), and bwrap itself
// never comes from the workspace (findBwrap).
import { packageRoot } from "../base/packageRoot.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { SANDBOX_PROBE_TIMEOUT_MS, SANDBOX_TMP_MAX_BYTES } from "../base/limits.js";
import { seccompFilter } from "./seccomp.js";
import { confinedAt } from "../workspace/confinedFs.js";
import { STARTUP_PATH, findSystemProgram } from "../base/systemProgram.js";

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
  /** The strategy and features came from the on-disk probe cache (see probeSandbox). */
  fromCache?: boolean;
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
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

/** The real path of `p` when only some leading part of it exists yet: that part resolved, the rest appended. */
function realPrefix(p: string): string {
  const rest: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(cur), ...rest.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      rest.push(path.basename(cur));
      cur = parent;
    }
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

let filterBytes: Buffer | undefined | null = null;

/** The seccomp program for this machine (undefined on architectures seccomp.ts does not know); built once. */
export function sandboxSeccomp(): Buffer | undefined {
  if (filterBytes === null) filterBytes = seccompFilter();
  return filterBytes;
}

// Which bwrap runs. A repository can commit an executable called `bwrap`
// (`.rt/bin/bwrap`, `tools/bwrap`), and the commands' PATH may start with a
// directory inside the workspace (the agent's text mode puts one there), so
// bubblewrap is never looked up on the PATH a command gets: only RT_BWRAP or
// the PATH rt itself started with (captured when this module loads, before
// anything rt runs), skipping relative entries and every directory inside the
// workspace root, and refusing any candidate whose real path lies inside it.

export type BwrapLookup = { bwrap: string; reason?: undefined } | { bwrap?: undefined; reason: string };

/**
 * Finds bwrap for a workspace rooted at `root`: RT_BWRAP (`rtBwrap`, an
 * absolute path outside the root) if set, else the first `bwrap` on `searchPath`
 * (default: the PATH rt started with) outside the root. Returns the real path
 * of the executable, which is what runs.
 */
export function findBwrap(
  rtBwrap: string | undefined,
  root: string | undefined,
  searchPath: string | undefined = STARTUP_PATH,
): BwrapLookup {
  const memo = `${rtBwrap ?? ""}\0${root ?? ""}\0${searchPath ?? ""}`;
  let found = lookups.get(memo);
  if (!found) {
    const r = findSystemProgram("bwrap", {
      root,
      searchPath,
      override: { variable: "RT_BWRAP", value: rtBwrap },
      purpose: "its sandbox",
    });
    found =
      r.path !== undefined
        ? { bwrap: r.path }
        : {
            reason:
              r.path === undefined && /inside the workspace \(/.test(r.reason)
                ? `${r.reason}; install bubblewrap in a system directory or set RT_BWRAP`
                : r.reason,
          };
    // Not finding it is not remembered: the user may install bubblewrap and try again.
    if (found.bwrap !== undefined) lookups.set(memo, found);
  }
  return found;
}

/** findBwrap's answers, once per process for each workspace root (the PATH it searches does not change). */
const lookups = new Map<string, BwrapLookup>();

export type SandboxProbe =
  | { available: true; bwrap: string; strategy: SandboxStrategy; features: BwrapFeatures; fromCache: boolean }
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

export async function featuresFromHelp(bwrap: string): Promise<BwrapFeatures> {
  const help = await run(bwrap, ["--help"]);
  const text = help.stdout + help.stderr;
  return { disableUserns: text.includes("--disable-userns"), size: text.includes("--size") };
}

/** The lines of bwrap's --help that name the options rt uses, as compiled into the executable. */
const HELP_LINES = { disableUserns: "\n    --disable-userns ", size: "\n    --size BYTES " };
const BWRAP_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The features, read from the executable's own --help text without running it
 * (a first sandboxed command otherwise pays a run of bwrap for them), or
 * undefined when the text is not found as expected. Only a guess that the probe
 * then confirms: when the sandbox fails with it, probeSandbox asks `--help`.
 */
export function featuresFromExecutable(bwrap: string): BwrapFeatures | undefined {
  let bytes: Buffer;
  try {
    const st = fs.statSync(bwrap);
    if (!st.isFile() || st.size > BWRAP_MAX_BYTES) return undefined;
    bytes = fs.readFileSync(bwrap);
  } catch {
    return undefined;
  }
  const disableUserns = bytes.includes(HELP_LINES.disableUserns);
  const size = bytes.includes(HELP_LINES.size);
  return disableUserns && size ? { disableUserns, size } : undefined;
}

/** The strategies worth trying here, in order of preference. */
export function candidateStrategies(uid: number | undefined = process.getuid?.()): SandboxStrategy[] {
  return uid === 0 ? ["userns", "root"] : ["userns"];
}

// The probe's answer is kept for the life of the process and, per user, on
// disk: finding it costs two runs of bwrap (`--help`, then `true` in the full
// sandbox), most of a first sandboxed command's time. The file is believed only
// when everything the answer depends on is unchanged (the same bwrap file, user,
// kernel, boot, user-namespace settings, and the exact sandbox rt sets up), and
// only if it can be trusted: a regular file, not a symbolic link, owned by this
// user and writable by nobody else, in a directory that is the same, outside the
// workspace (a cache a repository could plant would be untrusted input). A
// stale answer cannot weaken the sandbox: a sandboxed command never runs
// without bubblewrap, and when bwrap refuses to start with a cached answer the
// file is forgotten and the next command probes again.

const PROBE_CACHE_VERSION = 1;
const PROBE_CACHE_MAX_BYTES = 64 * 1024;

/** Where the probe's answer is kept for this user, or undefined when that would be inside the workspace. */
export function probeCacheFile(root: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  const home = env.HOME || os.homedir();
  const base =
    xdg && path.isAbsolute(xdg) ? xdg : home && path.isAbsolute(home) ? path.join(home, ".cache") : undefined;
  if (!base) return undefined;
  const file = path.join(base, "rt", "sandbox-probe.json");
  if (root !== undefined) {
    const realRoot = realOr(path.resolve(root));
    if (isWithin(realRoot, file) || isWithin(realRoot, realPrefix(file)) || isWithin(path.resolve(root), file))
      return undefined;
  }
  return file;
}

function readSmall(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    return "-";
  }
}

/** Everything the probe's answer depends on, as one string (undefined when bwrap cannot be stat'ed). */
function probeKey(bwrap: string): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.statSync(bwrap);
  } catch {
    return undefined;
  }
  const filter = sandboxSeccomp();
  const probeSpec: SandboxSpec = {
    bwrap,
    strategy: "userns",
    root: "/",
    cwd: "/",
    allowNet: false,
    features: { disableUserns: true, size: true },
  };
  return JSON.stringify([
    PROBE_CACHE_VERSION,
    bwrap,
    st.dev,
    st.ino,
    st.size,
    st.mtimeMs,
    st.ctimeMs,
    process.getuid?.() ?? -1,
    os.release(),
    readSmall("/proc/sys/kernel/random/boot_id"),
    readSmall("/proc/sys/kernel/unprivileged_userns_clone"),
    readSmall("/proc/sys/user/max_user_namespaces"),
    readSmall("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
    bwrapArgs(probeSpec, 3).join(" "),
    filter?.toString("hex") ?? "",
  ]);
}

/** Whether a directory or file can be trusted as this user's own: not a symlink, owned by us, writable by nobody else. */
function ownedPrivately(st: fs.Stats): boolean {
  const uid = process.getuid?.();
  return !st.isSymbolicLink() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
}

interface CachedProbe {
  strategy: SandboxStrategy;
  features: BwrapFeatures;
}

function readProbeCache(file: string, key: string): CachedProbe | undefined {
  let fd: number | undefined;
  try {
    if (!ownedPrivately(fs.lstatSync(path.dirname(file)))) return undefined;
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || !ownedPrivately(st) || st.size > PROBE_CACHE_MAX_BYTES) return undefined;
    const data = JSON.parse(fs.readFileSync(fd, "utf8")) as unknown;
    if (typeof data !== "object" || data === null) return undefined;
    const { key: k, strategy, features: f } = data as Record<string, unknown>;
    if (k !== key || !candidateStrategies().includes(strategy as SandboxStrategy)) return undefined;
    if (typeof f !== "object" || f === null) return undefined;
    const { disableUserns, size } = f as Record<string, unknown>;
    if (typeof disableUserns !== "boolean" || typeof size !== "boolean") return undefined;
    return { strategy: strategy as SandboxStrategy, features: { disableUserns, size } };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function writeProbeCache(file: string, key: string, answer: CachedProbe): void {
  try {
    // Through the one confined writer: O_EXCL temp file, never through a symlink, renamed into place.
    const dir = confinedAt(path.dirname(file));
    dir.mkdirs([], 0o700);
    if (!ownedPrivately(fs.lstatSync(path.dirname(file)))) return;
    dir.writeAtomic(
      path.basename(file),
      `${JSON.stringify({ key, strategy: answer.strategy, features: answer.features })}\n`,
      { mode: 0o600, fsync: false },
    );
  } catch {
    /* the cache is optional */
  }
}

/**
 * Runs `true` inside the sandbox with each strategy until one works. The
 * answer is kept per bwrap for the life of the process, and on disk (above).
 */
const probes = new Map<string, Promise<SandboxProbe>>();

/** Whether the sandbox can run here; `root` is the workspace root (bwrap and the cache must lie outside it). */
export function probeSandbox(env: NodeJS.ProcessEnv, root?: string): Promise<SandboxProbe> {
  const found = findBwrap(env.RT_BWRAP, root);
  if (found.bwrap === undefined) {
    return Promise.resolve({
      available: false,
      reason: `bubblewrap is not available (${found.reason}). ${INSTALL_HINT}.`,
    });
  }
  const bwrap = found.bwrap;
  const cacheFile = probeCacheFile(root);
  const memoKey = `${bwrap}\0${cacheFile ?? ""}`;
  let pending = probes.get(memoKey);
  if (!pending) {
    pending = (async (): Promise<SandboxProbe> => {
      const key = cacheFile ? probeKey(bwrap) : undefined;
      const cached = cacheFile && key ? readProbeCache(cacheFile, key) : undefined;
      if (cached) return { available: true, bwrap, ...cached, fromCache: true };
      const fromExecutable = featuresFromExecutable(bwrap);
      let guessed = fromExecutable !== undefined;
      let feats = fromExecutable ?? (await featuresFromHelp(bwrap));
      const failures: string[] = [];
      for (const strategy of candidateStrategies()) {
        let r = await probeStrategy(bwrap, strategy, feats);
        if (!r.ok && guessed) {
          // The guess may be wrong (a patched or unusual build): ask bwrap itself, and try again if it differs.
          guessed = false;
          const told = await featuresFromHelp(bwrap);
          if (told.disableUserns !== feats.disableUserns || told.size !== feats.size) {
            feats = told;
            r = await probeStrategy(bwrap, strategy, feats);
          }
        }
        if (r.ok) {
          if (cacheFile && key) writeProbeCache(cacheFile, key, { strategy, features: feats });
          return { available: true, bwrap, strategy, features: feats, fromCache: false };
        }
        failures.push(
          `${strategy === "userns" ? "with a user namespace" : "without a user namespace (as root)"}: ${r.error}`,
        );
      }
      return {
        available: false,
        reason:
          `bubblewrap (${bwrap}) is installed but cannot create the namespaces the sandbox needs here (${failures.join("; ")}). ` +
          "User namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), " +
          "or a container forbids them (docker run --security-opt seccomp=unconfined --cap-add SYS_ADMIN, or --privileged).",
      };
    })();
    probes.set(memoKey, pending);
  }
  return pending;
}

/**
 * bwrap refused to start with an answer taken from the disk cache (the
 * system changed under it): forget it, so that the next command probes again.
 */
export function forgetSandboxProbe(bwrap: string): void {
  for (const k of [...probes.keys()]) if (k.startsWith(`${bwrap}\0`)) probes.delete(k);
  const file = probeCacheFile(undefined);
  if (file) {
    try {
      confinedAt(path.dirname(file)).unlink(path.basename(file));
    } catch {
      /* already gone */
    }
  }
}

/** Tries one strategy: runs `true` in the full sandbox. */
export async function probeStrategy(
  bwrap: string,
  strategy: SandboxStrategy,
  feats: BwrapFeatures,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const filter = sandboxSeccomp();
  const spec: SandboxSpec = { bwrap, strategy, root: "/", cwd: "/", allowNet: false, features: feats };
  const r = await run(bwrap, [...bwrapArgs(spec, filter ? 3 : undefined), "--", "true"], filter);
  if (r.code === 0) return { ok: true };
  return { ok: false, error: (r.stderr.trim().split("\n").pop() ?? "").trim() || `exit code ${r.code}` };
}

/** Forgets cached probe results (tests). */
export function resetSandboxProbe(): void {
  probes.clear();
  lookups.clear();
}
