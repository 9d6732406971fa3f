// Checkpoints (src/workspace/checkpoints.ts): a shadow git store outside the
// work tree. Restoring a checkpoint gives back exactly the bytes and modes of
// every file as they were (seeded random changes: edits, new files, removals,
// binary content, exec bits), honours .gitignore, keeps the paths asked to be
// kept, never touches the user's repository (.git byte-identical), and runs
// nothing a repository's .gitattributes names.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { Checkpoints, shadowDirFor } from "../../src/workspace/checkpoints.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { git, seededRandom, tempTree } from "../helpers.ts";
import { fileHashes } from "./treeFiles.ts";

/** sha256 over every file of a directory (the user's .git), names included. */
function dirHash(dir: string): string {
  const h = crypto.createHash("sha256");
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      h.update(`${path.relative(dir, p)}\0${st.mode}\0${st.mtimeMs}\0`);
      if (st.isDirectory()) walk(p);
      else h.update(fs.readFileSync(p));
    }
  };
  walk(dir);
  return h.digest("hex");
}

function userRepo(files: Record<string, string | Buffer>): string {
  const root = tempTree(files);
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "init");
  fs.appendFileSync(path.join(root, "a.txt"), "stashed\n");
  git(root, "stash", "-q");
  fs.appendFileSync(path.join(root, "a.txt"), "staged\n");
  git(root, "add", "a.txt");
  return root;
}

test("restoring a checkpoint gives back every file's bytes and mode after seeded random changes; .git is never touched", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const rand = seededRandom(seed);
    const pick = <T>(xs: T[]): T => rand.pick(xs);
    const root = userRepo({
      "a.txt": "alpha\n",
      "src/b.ts": "export const b = 1;\n",
      "src/deep/c.py": "print('c')\r\n",
      "bin.dat": Buffer.from([0, 1, 2, 255, 254, 0, 10]),
      ".gitignore": "ignored.log\nbuild/\n",
      "ignored.log": "not recorded\n",
    });
    fs.chmodSync(path.join(root, "src/b.ts"), 0o755);
    const cache = tempTree({}, "rt-cache-");
    const ws = createWorkspace({ root, env: { ...process.env, XDG_CACHE_HOME: cache, RT_ROOT: undefined } });
    const gitBefore = dirHash(path.join(root, ".git"));
    const cp = Checkpoints.open(ws.root, ws.env);
    assert.ok(cp.dir.startsWith(cache) && !cp.dir.startsWith(root), "the store lies outside the work tree");
    const atCheckpoint = fileHashes(root);
    const first = cp.snapshot();

    // Random changes as a shell command would make them.
    for (let n = 0; n < 12; n++) {
      const files = Object.keys(fileHashes(root)).filter(
        (f) => !f.endsWith("/") && f !== ".gitignore" && f !== "ignored.log",
      );
      const op = pick(["edit", "new", "delete", "binary", "chmod", "deepnew"]);
      if (op === "edit" && files.length) fs.appendFileSync(path.join(root, pick(files)), `line ${n}\n`);
      else if (op === "new") fs.writeFileSync(path.join(root, `new${n}.txt`), `new ${n}\n`);
      else if (op === "deepnew") {
        fs.mkdirSync(path.join(root, `made${n}/x`), { recursive: true });
        fs.writeFileSync(path.join(root, `made${n}/x/f.txt`), "f\n");
        // (Not a file of a directory made since: an empty directory is no file, and git records none.)
      } else if (op === "delete" && files.length) {
        const gone = pick(files.filter((f) => !f.startsWith("made")));
        if (gone) fs.rmSync(path.join(root, gone));
      } else if (op === "binary")
        fs.writeFileSync(
          path.join(root, pick(["bin.dat", `blob${n}.bin`])),
          Buffer.from(Array.from({ length: rand.int(5000) }, () => rand.int(256))),
        );
      else if (op === "chmod" && files.length) fs.chmodSync(path.join(root, pick(files)), pick([0o644, 0o755]));
    }
    fs.writeFileSync(path.join(root, "ignored.log"), "changed, and ignored\n");
    const now = cp.snapshot();
    const r = cp.restore(ws.writer, now, first);
    assert.deepEqual(r.skipped, [], `seed ${seed}`);
    const after = fileHashes(root);
    // The ignored file is neither recorded nor restored: it keeps what it holds now.
    delete after["ignored.log"];
    delete atCheckpoint["ignored.log"];
    assert.deepEqual(after, atCheckpoint, `seed ${seed}: the tree is as it was at the checkpoint`);
    assert.equal(fs.readFileSync(path.join(root, "ignored.log"), "utf8"), "changed, and ignored\n");
    // Undo: the checkpoint taken before restoring brings the changes back.
    cp.restore(ws.writer, cp.snapshot(), now);
    assert.equal(cp.snapshot(), now, `seed ${seed}: restoring the later checkpoint undoes the restore`);
    assert.equal(dirHash(path.join(root, ".git")), gitBefore, `seed ${seed}: the user's .git is byte-identical`);
    assert.match(git(root, "stash", "list"), /stash@\{0\}/);
    assert.equal(git(root, "diff", "--cached", "--name-only").trim(), "a.txt");
  }
});

test("paths asked to be kept are left as they are; the rest is restored", () => {
  const root = tempTree({ "keep.txt": "v1\n", "other.txt": "v1\n" });
  const cp = Checkpoints.open(fs.realpathSync(root), { ...process.env, XDG_CACHE_HOME: tempTree({}, "rt-cache-") });
  const ws = createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined } });
  const first = cp.snapshot();
  fs.writeFileSync(path.join(root, "keep.txt"), "by hand\n");
  fs.writeFileSync(path.join(root, "other.txt"), "by rt\n");
  const r = cp.restore(ws.writer, cp.snapshot(), first, new Set(["keep.txt"]));
  assert.deepEqual(r.written, ["other.txt"]);
  assert.deepEqual(
    r.skipped.map((s) => s.path),
    ["keep.txt"],
  );
  assert.equal(fs.readFileSync(path.join(root, "keep.txt"), "utf8"), "by hand\n");
  assert.equal(fs.readFileSync(path.join(root, "other.txt"), "utf8"), "v1\n");
});

test("a repository's .gitattributes runs nothing and changes no byte: filter drivers from its .git/config, eol conversion, GIT_* of the caller", () => {
  const marker = path.join(tempTree({}, "rt-marker-"), "ran");
  const root = userRepo({ "a.txt": "alpha\n", "crlf.txt": "one\ntwo\n", "f.secret": "plain\n" });
  fs.writeFileSync(
    path.join(root, ".gitattributes"),
    "*.secret filter=evil diff=evil\n*.txt eol=crlf text working-tree-encoding=UTF-16\n",
  );
  git(root, "config", "filter.evil.clean", `touch ${marker}; cat`);
  git(root, "config", "filter.evil.smudge", `touch ${marker}; cat`);
  git(root, "config", "filter.evil.required", "true");
  const gitBefore = dirHash(path.join(root, ".git"));
  const saved = { GIT_DIR: process.env.GIT_DIR, GIT_INDEX_FILE: process.env.GIT_INDEX_FILE };
  // The caller's git variables point at the user's repository: the store must not follow them.
  process.env.GIT_DIR = path.join(root, ".git");
  process.env.GIT_INDEX_FILE = path.join(root, ".git", "index");
  try {
    const cp = Checkpoints.open(fs.realpathSync(root), { ...process.env, XDG_CACHE_HOME: tempTree({}, "rt-cache-") });
    const ws = createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined } });
    const before = fileHashes(root);
    const first = cp.snapshot();
    fs.writeFileSync(path.join(root, "f.secret"), "changed\n");
    fs.writeFileSync(path.join(root, "crlf.txt"), "three\n");
    cp.restore(ws.writer, cp.snapshot(), first);
    assert.deepEqual(fileHashes(root), before);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  assert.equal(fs.existsSync(marker), false, "the repository's filter program never ran");
  assert.equal(dirHash(path.join(root, ".git")), gitBefore);
});

test("a checkpoint of an unchanged 20,000-file tree takes well under a second", (t) => {
  const root = tempTree({});
  for (let d = 0; d < 200; d++) {
    const dir = path.join(root, `pkg${d}`);
    fs.mkdirSync(dir);
    for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(dir, `f${f}.ts`), `export const v${d}_${f} = ${f};\n`);
  }
  const cp = Checkpoints.open(fs.realpathSync(root), { ...process.env, XDG_CACHE_HOME: tempTree({}, "rt-cache-") });
  const first = cp.snapshot();
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    assert.equal(cp.snapshot(), first);
    times.push(performance.now() - start);
  }
  const best = Math.min(...times);
  t.diagnostic(`unchanged 20,000-file checkpoint: ${times.map((x) => x.toFixed(0)).join(", ")} ms`);
  assert.ok(best < 1000, `best of three ${best.toFixed(0)} ms`);
});

test("the store of a root is named by the root and lies in the user's cache directory", () => {
  assert.match(shadowDirFor("/home/u/proj", { XDG_CACHE_HOME: "/c" }), /^\/c\/rt\/checkpoints\/proj-[0-9a-f]{16}$/);
  assert.notEqual(shadowDirFor("/a/proj", { XDG_CACHE_HOME: "/c" }), shadowDirFor("/b/proj", { XDG_CACHE_HOME: "/c" }));
  assert.match(shadowDirFor("/x/y", { HOME: "/h" }), /^\/h\/\.cache\/rt\/checkpoints\//);
});
