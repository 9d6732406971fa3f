// A per-file lock between rt processes, held only around "check the file is
// still what we read, then replace it", so two rt edits racing on one file
// cannot both succeed against the same snapshot (no lost update). The lock is
// a file created with O_EXCL under `.rt/locks/` (or next to the target when
// state is off) holding the owner's pid; a lock whose owner died is taken over.
import fs from "node:fs";
import path from "node:path";
import { StateStore } from "./state.js";

const WAIT_MS = 5000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function withFileLock<T>(state: StateStore, rel: string, abs: string, fn: () => T): T {
  let lockPath: string;
  if (state.ensure()) {
    fs.mkdirSync(state.file("locks"), { recursive: true });
    lockPath = state.file("locks", `${StateStore.keyFor(rel)}.lock`);
  } else {
    lockPath = path.join(path.dirname(abs), `.${path.basename(abs)}.rt-lock`);
  }
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const owner = Number(fs.readFileSync(lockPath, { encoding: "utf8", flag: "r" }) || "0");
      if (owner && !alive(owner)) {
        fs.rmSync(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${rel} is locked by another rt process (pid ${owner}); try again`);
      sleep(10);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lockPath, { force: true });
  }
}
