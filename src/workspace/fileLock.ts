// A per-file lock between rt edits (in this process and in others), held from
// reading the file to replacing it, so two rt edits racing on one file are
// serialized and none is lost. The lock is a file created with O_EXCL under
// `.rt/locks/` (or next to the target when state is off) holding the owner's
// pid; a lock whose owner died is taken over. Waiting is asynchronous, so a
// server handling several requests keeps serving while one waits.
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function withFileLock<T>(state: StateStore, rel: string, abs: string, fn: () => T | Promise<T>): Promise<T> {
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
      let owner = 0;
      try {
        owner = Number(fs.readFileSync(lockPath, "utf8") || "0");
      } catch {
        continue; // released meanwhile
      }
      if (owner && !alive(owner)) {
        fs.rmSync(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${rel} is locked by another rt process (pid ${owner}); try again`);
      await sleep(5);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockPath, { force: true });
  }
}
