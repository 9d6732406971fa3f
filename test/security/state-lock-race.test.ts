// Races on rt's own coordination files, run with real processes.
//
// The edit lock (.rt/locks/<key>.lock): a lock judged stale (its owner dead, or
// no lock of rt's) is removed only if the name still holds the file that was
// judged; removers take turns (a `.break` file). Invariant: at most one holder
// at a time, whatever the interleaving of owners that release and exit, owners
// that die holding the lock, and waiters that remove their leftovers.
//
// `.rt/.gitignore`: another process starting at the same moment never reads it
// empty (it would take an empty file for a repository's own .gitignore and keep
// no state): the name holds nothing or all of `*\n`.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { buildSync } from "esbuild";
import { REPO, soak, tempTree } from "../helpers.ts";
import { StateStore, ensureStateDir } from "../../src/workspace/state.ts";
import { withFileLock } from "../../src/workspace/fileLock.ts";
import { ConfinedFs } from "../../src/workspace/confinedFs.ts";

/** A pid that is certainly not running now (a child that has exited and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

function setup() {
  const cfg = tempTree({}, "rt-lockcfg-");
  const root = tempTree({ "f.txt": "one\n" }, "rt-lockrace-");
  const state = new StateStore(root, true, { XDG_CONFIG_HOME: cfg });
  assert.ok(state.ensure());
  const name = `${StateStore.keyFor("f.txt")}.lock`;
  fs.mkdirSync(path.join(root, ".rt", "locks"), { recursive: true });
  const lockFile = path.join(root, ".rt", "locks", name);
  const lockText = (pid: number, suffix = "") => `${pid}\n${state.mac(`locks/${name}${suffix}`, String(pid))}`;
  return { cfg, root, state, lockFile, lockText };
}

test("a lock whose owner released it and exited after its pid was read, and that another process took since, is not removed", async () => {
  const { root, state, lockFile, lockText } = setup();
  const dead = deadPid();
  fs.writeFileSync(lockFile, lockText(dead));
  // The moment rt asks whether the owner it read is alive, that owner has released the lock and
  // exited, and another rt (this process' pid: alive) has taken it. It releases 150 ms later.
  const taken = lockText(process.pid);
  let heldIntact: boolean | undefined;
  let released = false;
  const realKill = process.kill;
  process.kill = ((pid: number, signal?: string | number) => {
    if (pid === dead && signal === 0 && heldIntact === undefined) {
      heldIntact = false;
      fs.unlinkSync(lockFile);
      fs.writeFileSync(lockFile, taken);
      setTimeout(() => {
        heldIntact = fs.existsSync(lockFile) && fs.readFileSync(lockFile, "utf8") === taken;
        fs.rmSync(lockFile, { force: true });
        released = true;
      }, 150);
    }
    return realKill.call(process, pid, signal);
  }) as typeof process.kill;
  let ranWhileHeld: boolean | undefined;
  try {
    await withFileLock(state, "f.txt", path.join(root, "f.txt"), () => {
      ranWhileHeld = !released;
    });
  } finally {
    process.kill = realKill;
  }
  assert.equal(heldIntact, true, "the other process' lock was removed under it");
  assert.equal(ranWhileHeld, false, "the edit ran while the other process held the lock");
});

test("a stale lock is removed by one remover at a time: a live .break is waited for, a dead or planted one is removed", async () => {
  const { root, state, lockFile, lockText } = setup();
  const dead = deadPid();
  fs.writeFileSync(lockFile, lockText(dead));
  fs.writeFileSync(`${lockFile}.break`, lockText(process.pid, ".break"));
  let staleWhileBreakHeld: boolean | undefined;
  setTimeout(() => {
    staleWhileBreakHeld = fs.existsSync(lockFile);
    fs.rmSync(`${lockFile}.break`);
  }, 150);
  await withFileLock(state, "f.txt", path.join(root, "f.txt"), () => undefined);
  assert.equal(staleWhileBreakHeld, true, "the stale lock was removed while another remover held .break");
  assert.ok(!fs.existsSync(lockFile) && !fs.existsSync(`${lockFile}.break`));

  // A .break left by a remover that died, or one a repository committed: removed, no 5 s wait.
  for (const planted of [lockText(deadPid(), ".break"), String(process.pid), "garbage"]) {
    fs.writeFileSync(lockFile, lockText(dead));
    fs.writeFileSync(`${lockFile}.break`, planted);
    const t0 = Date.now();
    await withFileLock(state, "f.txt", path.join(root, "f.txt"), () => undefined);
    assert.ok(Date.now() - t0 < 2000, `waited ${Date.now() - t0} ms on .break ${JSON.stringify(planted)}`);
    assert.ok(!fs.existsSync(lockFile) && !fs.existsSync(`${lockFile}.break`));
  }
});

// Real processes: rounds of workers start together on one file; each takes the lock a few times
// (short holds, then exits: its pid dies right after it released), and some die holding it (their
// lock goes stale and the others remove it). Every holder logs entering and leaving with O_APPEND
// writes; the log must read enter/leave pairs of one pid, except after a holder that died inside.
test("edit lock under churn: owners that exit, owners that die holding it, waiters removing stale locks: never two holders", {
  timeout: 120_000,
}, async () => {
  const { cfg, root, state } = setup();
  const bundle = path.join(tempTree({}, "rt-lockbundle-"), "lock.mjs");
  buildSync({
    stdin: {
      contents:
        'export { withFileLock } from "./src/workspace/fileLock.ts"; export { StateStore } from "./src/workspace/state.ts";',
      resolveDir: REPO,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: bundle,
    logLevel: "error",
  });
  const log = path.join(root, "holders.log");
  const worker = `
    import fs from "node:fs";
    import { withFileLock, StateStore } from ${JSON.stringify(bundle)};
    const [root, cfg, log, times, crash] = process.argv.slice(1);
    const state = new StateStore(root, true, { XDG_CONFIG_HOME: cfg });
    for (let i = 0; i < Number(times); i++) {
      await withFileLock(state, "f.txt", root + "/f.txt", async () => {
        if (crash === "1" && i === Number(times) - 1) {
          fs.appendFileSync(log, "+" + process.pid + " died\\n");
          process.exit(0); // dies holding the lock
        }
        fs.appendFileSync(log, "+" + process.pid + "\\n");
        await new Promise((r) => setTimeout(r, Math.random() * 3));
        fs.appendFileSync(log, "-" + process.pid + "\\n");
      });
    }
  `;
  const run = (crash: boolean) =>
    new Promise<string>((resolve) => {
      const c = spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          worker,
          root,
          cfg,
          log,
          String(2 + Math.floor(Math.random() * 3)),
          crash ? "1" : "0",
        ],
        {
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      let err = "";
      c.stderr!.on("data", (d) => (err += d));
      c.on("close", (code) => resolve(code === 0 ? "" : `exit ${code}: ${err}`));
    });
  // Rounds of seven processes at once: three in npm test, twelve in the soak run (RT_SOAK=1).
  const rounds = soak(3, 12);
  for (let round = 0; round < rounds; round++) {
    const failures = (await Promise.all(Array.from({ length: 7 }, (_, i) => run(i < 2)))).filter(Boolean);
    assert.deepEqual(failures, [], `round ${round}`);
  }
  const entries = fs.readFileSync(log, "utf8").trim().split("\n");
  let holder: string | undefined;
  let holds = 0;
  for (const [i, e] of entries.entries()) {
    if (e.startsWith("+")) {
      assert.equal(
        holder,
        undefined,
        `line ${i + 1}: ${e} entered while ${holder} held the lock\n${entries.slice(Math.max(0, i - 6), i + 3).join("\n")}`,
      );
      holds++;
      if (!e.endsWith(" died")) holder = e.slice(1);
    } else {
      assert.equal(e.slice(1), holder, `line ${i + 1}: ${e} left a lock it did not hold`);
      holder = undefined;
    }
  }
  assert.ok(holds >= rounds * 7 * 2, `${holds} holds`);
  // The last round may end with a holder that died: one more edit removes its lock, and then nothing is left.
  await withFileLock(state, "f.txt", path.join(root, "f.txt"), () => undefined);
  assert.deepEqual(fs.readdirSync(path.join(root, ".rt", "locks")), [], "no lock or .break file left");
});

// A process polls `.rt/.gitignore` as fast as it can while this one creates it again and again
// (removing it between rounds) the way every rt process does on start.
test(".rt/.gitignore is published whole: a process reading it meanwhile never finds it empty or partial", {
  timeout: 60_000,
}, async () => {
  const root = tempTree({}, "rt-gitignore-race-");
  const file = path.join(root, ".rt", ".gitignore");
  const poller = spawn(
    "python3",
    [
      "-c",
      `
import json, os, sys
path, stop = sys.argv[1], sys.argv[2]
seen = {}
print("ready", flush=True)
n = 0
while True:
    n += 1
    if n % 256 == 0 and os.path.exists(stop):
        break
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError):
        data = None
    key = "(missing)" if data is None else data.decode("latin1")
    seen[key] = seen.get(key, 0) + 1
print(json.dumps(seen), flush=True)
`,
      file,
      path.join(root, "stop"),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  await new Promise<void>((resolve, reject) => {
    poller.once("error", reject);
    poller.stdout!.on("data", (d) => {
      out += d;
      if (out.startsWith("ready\n")) resolve();
    });
  });
  const rootFs = new ConfinedFs(root);
  let rounds = 0;
  const until = Date.now() + 1500;
  while (Date.now() < until) {
    ensureStateDir(rootFs);
    assert.equal(fs.readFileSync(file, "utf8"), "*\n");
    fs.unlinkSync(file);
    rounds++;
    if (rounds % 64 === 0) await new Promise((r) => setImmediate(r)); // let the poller's pipe drain
  }
  fs.writeFileSync(path.join(root, "stop"), "");
  await new Promise((r) => poller.once("close", r));
  const seen = JSON.parse(out.slice("ready\n".length)) as Record<string, number>;
  const shown = `${JSON.stringify(seen)} (${rounds} rounds)`;
  assert.ok(seen["(missing)"] > 0 && seen["*\n"] > 0, `the poller ran and saw both states: ${shown}`);
  assert.deepEqual(Object.keys(seen).sort(), ["(missing)", "*\n"], `only nothing or "*\\n" may be read: ${shown}`);
  assert.deepEqual(fs.readdirSync(path.join(root, ".rt")), [], "no temp file left");
});
