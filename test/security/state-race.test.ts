// The confined writer under a concurrent symlink flip. A helper process swaps a
// directory under the root with a symlink pointing outside it
// (renameat2(RENAME_EXCHANGE), through python3's ctypes) as fast as it can,
// while one rt process makes hundreds of write / edit / edit_lines calls into
// that directory, and its state directory `.rt` is swapped the same way.
// Invariant: nothing outside the root is created, changed or removed (no new
// file, no temp file, no changed byte), whatever the interleaving; calls that
// meet the symlink fail cleanly, the others succeed inside the root.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { lines, rtBatch, soak, tempTree, treeHash } from "../helpers.ts";

/** Calls made while the directories flip: a short run in `npm test`, the long one in `npm run test:soak`. */
const CALLS = soak(60, 300);

const FLIPPER = `
import ctypes, random, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
pause = float(sys.argv[1])
pairs = [(a.encode(), b.encode()) for a, b in zip(sys.argv[2::2], sys.argv[3::2])]
print("ready", flush=True)
def exchange(a, b):
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")
while True:
    # Each directory spends a short moment as the symlink (hundreds of flips a second), the rest
    # as itself: calls that meet no symlink go through, the others hit the window at random points.
    for a, b in pairs:
        exchange(a, b)
        for _ in range(random.randrange(200)):
            pass
        exchange(a, b)
    if pause:
        time.sleep(random.random() * pause)
`;

function startFlipper(pairs: Array<[string, string]>, pauseS: number): Promise<ChildProcess> {
  const child = spawn("python3", ["-c", FLIPPER, String(pauseS), ...pairs.flat()], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.stdout!.once("data", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`flipper exited early (${code})`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const closed = new Promise((r) => child.once("close", r));
  child.kill("SIGKILL");
  await closed;
}

/** Every path below `dir` (files, directories, symlinks), sorted. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      out.push(path.relative(dir, p));
      if (fs.lstatSync(p).isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

test(`a directory flipped to a symlink leading outside during ${CALLS} writes and edits: nothing outside the root is created or changed`, {
  timeout: 180_000,
}, async (t) => {
  const same = { "a.txt": lines(20), "b.txt": lines(20, (i) => `value ${i}`), "c.txt": lines(20) };
  const files: Record<string, string> = { "root/.rt/.gitignore": "*\n", "outside-state/journal/keep": "k\n" };
  for (const [name, text] of Object.entries(same)) {
    files[`root/d/${name}`] = text;
    files[`outside/${name}`] = text; // the same content outside: an edit that followed the link would succeed there
  }
  const parent = tempTree(files, "rt-race-");
  const root = path.join(parent, "root");
  const outside = path.join(parent, "outside");
  const outsideState = path.join(parent, "outside-state");
  fs.symlinkSync(outside, path.join(root, "l"));
  fs.symlinkSync(outsideState, path.join(root, "l-state"));
  const before = {
    outside: treeHash(outside, []),
    state: treeHash(outsideState, []),
    list: listing(outside),
    stateList: listing(outsideState),
  };

  const requests: Array<{ tool: string; args: unknown }> = [];
  for (let i = 0; i < CALLS; i++) {
    switch (i % 4) {
      case 0:
        requests.push({ tool: "write", args: { path: `d/new-${i}.txt`, content: `new ${i}\n` } });
        break;
      case 1:
        requests.push({ tool: "write", args: { path: "d/a.txt", content: lines(20, (k) => `rewritten ${i} ${k}`) } });
        break;
      case 2:
        requests.push({
          tool: "edit",
          args: { path: "d/b.txt", old_string: "value 7\n", new_string: `value 7\nadded ${i}\n` },
        });
        break;
      default:
        requests.push({
          tool: "edit_lines",
          args: { path: "d/c.txt", command: "replace", start_line: 3, end_line: 3, new_content: `line 3 edited ${i}` },
        });
    }
  }
  const flipper = await startFlipper(
    [
      [path.join(root, "d"), path.join(root, "l")],
      [path.join(root, ".rt"), path.join(root, "l-state")],
    ],
    0.001,
  );
  let results: Array<Record<string, any>>;
  try {
    ({ results } = await rtBatch(requests, { cwd: root, env: { RT_ROOT: root } }));
  } finally {
    await stop(flipper);
  }
  assert.equal(results.length, requests.length, "one result per request");
  const succeeded = results.filter((r) => r.success).length;
  assert.equal(
    listing(outside).join("\n"),
    before.list.join("\n"),
    "no file created or removed outside the root (temp files included)",
  );
  assert.equal(treeHash(outside, []), before.outside, "no byte changed outside the root");
  assert.equal(listing(outsideState).join("\n"), before.stateList.join("\n"), "no state file created outside the root");
  assert.equal(treeHash(outsideState, []), before.state, "no state byte changed outside the root");
  // Not vacuous: the writes that did not meet the symlink went through, inside the root.
  t.diagnostic(`${succeeded} of ${requests.length} calls succeeded`);
  assert.ok(succeeded >= 10, `only ${succeeded} of ${requests.length} calls succeeded`);
  // Calls that met the symlink failed as tool errors that say why, not as raw exceptions ("write failed (EINVAL): ...").
  for (const r of results) if (!r.success) assert.doesNotMatch(r.error ?? "", /^\w+ failed \(E[A-Z]+\)/, r.error);
});
