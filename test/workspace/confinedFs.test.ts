// The confined writer (src/workspace/confinedFs.ts). Invariants:
//   - nothing is ever written, created, read, appended to or removed through a
//     symlink below the base, at any component, whatever it points to (outside,
//     inside, dangling);
//   - creation is exclusive (O_EXCL|O_NOFOLLOW): anything at the name, a
//     dangling symlink included, is EEXIST and stays as it was;
//   - a directory opened by the walk stays the one written into even when its
//     name is swapped for a symlink afterwards (the /proc/self/fd lookup);
//   - atomic replacement keeps the file's mode and leaves no temp file.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { REPO, tempTree, treeHash } from "../helpers.ts";
import { ConfinedFs, raceFree, pathParts, confinedAt } from "../../src/workspace/confinedFs.ts";

function setup() {
  const parent = tempTree({
    "root/a/b/file.txt": "inside\n",
    "outside/secret.txt": "secret\n",
    "outside/a/b/file.txt": "outside copy\n",
  });
  const root = path.join(parent, "root");
  const outside = path.join(parent, "outside");
  return { parent, root, outside, files: new ConfinedFs(root), before: treeHash(outside, []) };
}

test("this machine has the race-free mode (Linux with /proc)", () => {
  assert.equal(raceFree(), process.platform === "linux");
});

test("every operation refuses a symlink at every component, pointing outside, inside or nowhere", () => {
  // Directory components point at directories; the last one at a file (or nowhere).
  const targets = (outside: string, root: string, last: boolean) =>
    last
      ? {
          outside: path.join(outside, "secret.txt"),
          inside: path.join(root, "a/b/file.txt"),
          dangling: path.join(outside, "nope"),
        }
      : { outside, inside: path.join(root, "a"), dangling: path.join(outside, "nope") };
  const paths = [
    ["x", "b", "file.txt"],
    ["a", "x", "file.txt"],
    ["a", "b", "x"],
  ];
  for (const kind of ["outside", "inside", "dangling"] as const) {
    for (const [depth, parts] of paths.entries()) {
      const { root, outside, files, before } = setup();
      // Put a symlink at component `depth` (named x): a/b/file.txt with that component replaced.
      const linkParent = path.join(root, ...parts.slice(0, depth));
      fs.mkdirSync(linkParent, { recursive: true });
      fs.symlinkSync(targets(outside, root, depth === 2)[kind], path.join(linkParent, "x"));
      const rel = parts.join("/");
      const ops: Array<[string, () => unknown]> = [
        ["writeAtomic", () => files.writeAtomic(rel, "pwned\n", { mkdirs: true })],
        ["createExclusive", () => files.createExclusive(rel, "pwned\n", { mkdirs: true })],
        ["openExclusive", () => files.openExclusive(rel, { mkdirs: true }).close()],
        ["openAppend", () => files.openAppend(rel).close()],
        ["readFile", () => files.readFile(rel)],
        ["publishExclusive", () => files.publishExclusive(rel, "pwned\n", { mkdirs: true })],
        ["mkdirs", () => files.mkdirs(`${rel}/deeper`)],
      ];
      for (const [name, op] of ops) {
        let result: unknown;
        let error: unknown;
        try {
          result = op();
        } catch (e) {
          error = e;
        }
        const what = `${name} ${kind} link at ${rel}`;
        // A dangling link at the last name is "something is there" for exclusive creation.
        if (error === undefined) assert.ok(name === "publishExclusive" && result === false, `${what}: must be refused`);
        else if ((error as NodeJS.ErrnoException).code !== "EEXIST")
          assert.match(String((error as Error).message), /symbolic link|not a directory/, what);
      }
      assert.equal(treeHash(outside, []), before, `${kind} at depth ${depth}: nothing changed outside`);
      assert.equal(
        fs.readFileSync(path.join(root, "a/b/file.txt"), "utf8"),
        "inside\n",
        `${kind} at depth ${depth}: the real file is untouched`,
      );
      if (kind === "dangling") assert.equal(fs.existsSync(path.join(outside, "nope")), false);
    }
  }
});

test("readFilesIn reads many files of one directory with one walk, and leaves out what readFile would refuse", () => {
  const { root, outside, files } = setup();
  fs.writeFileSync(path.join(root, "a/b/other.txt"), "other\n");
  fs.writeFileSync(path.join(root, "a/b/big.txt"), "x".repeat(100));
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "a/b/link.txt"));
  fs.mkdirSync(path.join(root, "a/b/dir"));
  spawnSyncOk("mkfifo", [path.join(root, "a/b/fifo")]);
  const got = files.readFilesIn(
    "a/b",
    ["file.txt", "other.txt", "missing.txt", "link.txt", "dir", "fifo", "big.txt"],
    50,
  );
  assert.deepEqual(Object.fromEntries([...got].map(([k, v]) => [k, v.toString()])), {
    "file.txt": "inside\n",
    "other.txt": "other\n",
  });
  assert.equal(files.readFilesIn("nope", ["file.txt"], 50).size, 0, "a missing directory");
  assert.throws(() => files.readFilesIn("a", ["b/file.txt"], 50), /a file name is expected/);
  assert.throws(() => files.readFilesIn("a", [".."], 50), /not allowed/);
  // A symlinked directory on the way, pointing where the same names hold other content: nothing is read.
  fs.symlinkSync(path.join(outside, "a"), path.join(root, "x"));
  assert.equal(files.readFilesIn("x/b", ["file.txt"], 50).size, 0);
  fs.renameSync(path.join(root, "a"), path.join(root, "a-real"));
  fs.symlinkSync(path.join(outside, "a"), path.join(root, "a"));
  assert.equal(files.readFilesIn("a/b", ["file.txt"], 50).size, 0);
  // Under the state prefix too.
  const state = new ConfinedFs(root, "a-real");
  assert.deepEqual([...state.readFilesIn("b", ["file.txt"], 50).keys()], ["file.txt"]);
});

function spawnSyncOk(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args);
  assert.equal(r.status, 0, String(r.stderr));
}

test("unlink removes a symlink itself, never what it points to; a symlinked directory on the way is refused", () => {
  const { root, outside, files, before } = setup();
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "a", "link"));
  assert.equal(files.unlink("a/link"), true);
  assert.equal(fs.existsSync(path.join(root, "a", "link")), false);
  fs.symlinkSync(path.join(outside, "a"), path.join(root, "dir"));
  assert.throws(() => files.unlink("dir/b/file.txt"), /symbolic link/);
  assert.equal(treeHash(outside, []), before);
  assert.equal(files.unlink("a/none"), false);
});

test("paths: '..', NUL bytes and absolute paths are refused; '.' and empty parts are skipped", () => {
  assert.deepEqual(pathParts("a//./b/"), ["a", "b"]);
  assert.deepEqual(pathParts(["a/b", "c"]), ["a", "b", "c"]);
  assert.throws(() => pathParts("a/../b"), /"\.\." is not allowed/);
  assert.throws(() => pathParts("a\0b"), /NUL/);
  assert.throws(() => pathParts("/etc/passwd"), /absolute/);
});

test("writeAtomic: creates, replaces keeping the mode, makes parents, leaves no temp file", () => {
  const { root, files } = setup();
  files.writeAtomic("new/dir/f.txt", "one\n", { mkdirs: true });
  assert.equal(fs.readFileSync(path.join(root, "new/dir/f.txt"), "utf8"), "one\n");
  fs.chmodSync(path.join(root, "new/dir/f.txt"), 0o640);
  files.writeAtomic("new/dir/f.txt", "two\n");
  assert.equal(fs.readFileSync(path.join(root, "new/dir/f.txt"), "utf8"), "two\n");
  assert.equal(fs.statSync(path.join(root, "new/dir/f.txt")).mode & 0o7777, 0o640);
  files.writeAtomic("new/dir/f.txt", "three\n", { mode: 0o600 });
  assert.equal(fs.statSync(path.join(root, "new/dir/f.txt")).mode & 0o7777, 0o600);
  assert.deepEqual(fs.readdirSync(path.join(root, "new/dir")), ["f.txt"]);
  assert.throws(
    () => files.writeAtomic("missing/f.txt", "x"),
    (e: NodeJS.ErrnoException) => e.code === "ENOENT",
  );
  assert.throws(() => files.writeAtomic("new", "x"), /is a directory/);
});

test("exclusive creation: EEXIST for a file, a dangling symlink or a directory; nothing changes", () => {
  const { root, outside, files, before } = setup();
  fs.symlinkSync(path.join(outside, "created-through-link"), path.join(root, "a", "dangling"));
  for (const rel of ["a/b/file.txt", "a/dangling", "a/b"]) {
    assert.throws(
      () => files.createExclusive(rel, "x"),
      (e: NodeJS.ErrnoException) => e.code === "EEXIST",
      rel,
    );
  }
  assert.equal(fs.existsSync(path.join(outside, "created-through-link")), false);
  assert.equal(treeHash(outside, []), before);
  files.createExclusive("a/fresh", "new\n");
  assert.equal(fs.readFileSync(path.join(root, "a/fresh"), "utf8"), "new\n");
});

test("reads refuse symlinks and non-regular files (a FIFO does not hang), and cap the size", () => {
  const { root, outside, files } = setup();
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "a", "key"));
  assert.throws(() => files.readFile("a/key"), /symbolic link/);
  assert.throws(() => files.readPrefix("a/key", 10), /symbolic link/);
  assert.equal(files.readFile("a/none"), undefined);
  assert.equal(files.readFile("none/at/all"), undefined);
  assert.throws(() => files.readFile("a/b"), /not a regular file/);
  assert.throws(() => files.readFile("a/b/file.txt", { maxBytes: 3 }), /more than the 3 allowed/);
  assert.equal(files.readPrefix("a/b/file.txt", 3)!.toString(), "ins");
  const fifo = path.join(root, "a", "fifo");
  const mk = spawn("mkfifo", [fifo]);
  return new Promise<void>((resolve) =>
    mk.on("close", () => {
      assert.throws(() => files.readFile("a/fifo"), /not a regular file/);
      assert.throws(() => files.openAppend("a/fifo"), /not a regular file|ENXIO/);
      resolve();
    }),
  );
});

test("append: writes go to the end of the file opened, never through a symlink", () => {
  const { root, files } = setup();
  const h = files.openExclusive("a/log", { append: true });
  h.write("one\n");
  h.close();
  const g = files.openAppend("a/log");
  g.write("two\n");
  g.close();
  assert.equal(fs.readFileSync(path.join(root, "a/log"), "utf8"), "one\ntwo\n");
});

test("a directory swapped for a symlink after the walk opened it: the write lands in the directory opened, inside the root", {
  skip: !raceFree(),
}, () => {
  const { root, outside, files, before } = setup();
  const dir = files.openDir("a/b");
  try {
    // Swap a/b for a symlink to the outside copy: a path-based write would now go there.
    fs.renameSync(path.join(root, "a/b"), path.join(root, "a/moved"));
    fs.symlinkSync(path.join(outside, "a/b"), path.join(root, "a/b"));
    fs.writeFileSync(dir.at("file.txt"), "through the open directory\n");
    assert.deepEqual(fs.readdirSync(`/proc/self/fd/${dir.fd}`), ["file.txt"]);
  } finally {
    dir.close();
  }
  assert.equal(fs.readFileSync(path.join(root, "a/moved/file.txt"), "utf8"), "through the open directory\n");
  assert.equal(treeHash(outside, []), before, "the outside copy is untouched");
  // And the next walk meets the symlink and refuses it.
  assert.throws(() => files.writeAtomic("a/b/file.txt", "x"), /a\/b is a symbolic link/);
});

test("publishExclusive: of many concurrent publishers exactly one wins, and a reader sees nothing or all of it", async () => {
  const dir = tempTree();
  const script = `
    import { ConfinedFs } from ${JSON.stringify(path.join(REPO, "src/workspace/confinedFs.ts"))};
    const files = new ConfinedFs(${JSON.stringify(dir)});
    const won = files.publishExclusive("key", process.argv[1].repeat(100000), { mode: 0o600 });
    process.stdout.write(won ? "won" : "lost");
  `;
  const run = (letter: string) =>
    new Promise<string>((resolve) => {
      const c = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, letter], {
        cwd: REPO,
      });
      let out = "";
      c.stdout.on("data", (d) => (out += d));
      c.on("close", () => resolve(out));
    });
  const outcomes = await Promise.all(["a", "b", "c", "d"].map(run));
  assert.equal(outcomes.filter((o) => o === "won").length, 1, outcomes.join(","));
  const text = fs.readFileSync(path.join(dir, "key"), "utf8");
  assert.equal(text.length, 100000);
  assert.ok(/^(a+|b+|c+|d+)$/.test(text));
  assert.equal(fs.statSync(path.join(dir, "key")).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(dir), ["key"], "no temp file left");
});

test("confinedAt: the user's own directory is taken as it resolves; missing parts are created below it without following links", () => {
  const parent = tempTree({ "real/x": "" });
  fs.symlinkSync(path.join(parent, "real"), path.join(parent, "mine"));
  const files = confinedAt(path.join(parent, "mine", "new", "deep"));
  files.writeAtomic("f.txt", "ok\n", { mkdirs: true });
  assert.equal(fs.readFileSync(path.join(parent, "real/new/deep/f.txt"), "utf8"), "ok\n");
});
