// A per-file lock between rt edits (in this process and in others), held from
// reading the file to replacing it, so two rt edits racing on one file are
// serialized and none is lost. The lock is a file created with O_EXCL (and
// O_NOFOLLOW, through the confined writer) under `.rt/locks/` (or next to the
// target when state is off) holding the owner's pid; a lock whose owner died
// is taken over. Under `.rt/locks/` the pid carries rt's MAC (stateKey.ts): a
// lock file a repository committed, or anything that is not a regular file
// there, is not a lock and is removed instead of waited for. Waiting is
// asynchronous, so a server handling several requests keeps serving while one waits.
import { StateStore } from "./state.js";
import { isRefusal, type ConfinedFs } from "./confinedFs.js";
import { ToolError } from "../tools/types.js";

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

interface LockPlace {
  files: ConfinedFs;
  parts: string[];
  /** The MAC context when the lock is authenticated (under .rt/locks). */
  context?: string;
}

function lockPlace(state: StateStore, rel: string): LockPlace {
  if (state.ensure()) {
    const name = `${StateStore.keyFor(rel)}.lock`;
    try {
      state.files.mkdirs("locks");
      return { files: state.files, parts: ["locks", name], context: `locks/${name}` };
    } catch (e) {
      if (!isRefusal(e)) throw e;
      // `.rt/locks` is a symlink or a file: every rt process sees the same, and locks at the root instead (the state-off place).
    }
  }
  return rootPlace(state, rel);
}

/** State off: one place at the root, whether or not the file's directory exists yet. */
function rootPlace(state: StateStore, rel: string): LockPlace {
  return { files: state.rootFs, parts: [`.rt-lock-${StateStore.keyFor(rel)}`] };
}

/** The pid holding the lock: a number, 0 while its owner is still writing it, or "invalid" when it is no lock of rt's. */
function lockOwner(state: StateStore, place: LockPlace): number | "invalid" | "gone" {
  let bytes: Buffer | undefined;
  try {
    bytes = place.files.readFile(place.parts, { maxBytes: 256 });
  } catch {
    return "invalid"; // a symlink or a directory where the lock file belongs
  }
  if (bytes === undefined) return "gone";
  const text = bytes.toString("latin1");
  if (text === "") return 0;
  const [pid, mac] = text.split("\n");
  if (!/^[1-9]\d{0,9}$/.test(pid)) return "invalid";
  if (place.context && !state.macMatches(place.context, pid, mac)) return "invalid";
  return Number(pid);
}

/** Runs `fn` holding the lock of `rel` (a resolved, root-relative path; `_abs` is its absolute form, kept for callers). */
export async function withFileLock<T>(state: StateStore, rel: string, _abs: string, fn: () => T | Promise<T>): Promise<T> {
  let place = lockPlace(state, rel);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const h = place.files.openExclusive(place.parts, { mkdirs: !!place.context, mode: 0o600, fsync: false });
      try {
        const pid = String(process.pid);
        h.write(place.context ? `${pid}\n${state.mac(place.context, pid)}` : pid);
      } finally {
        h.close();
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const owner = lockOwner(state, place);
      if (owner === "gone") continue; // released meanwhile
      if (owner === "invalid" || (owner !== 0 && !alive(owner))) {
        try {
          place.files.unlink(place.parts);
        } catch (u) {
          // Not a file, and it cannot be removed (a directory a repository committed there): every
          // rt process meets the same and locks at the root instead, as with a symlinked .rt/locks.
          if (!place.context) {
            throw new ToolError(`${rel}: rt cannot take its edit lock: ${place.files.abs(place.parts)} is not a lock file and cannot be removed (${(u as Error).message}); remove it and retry`);
          }
          place = rootPlace(state, rel);
        }
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${rel} is locked by another rt process (pid ${owner}); try again`);
      await sleep(5);
    }
  }
  try {
    return await fn();
  } finally {
    try {
      place.files.unlink(place.parts);
    } catch {
      /* the directory was swapped meanwhile: the lock file is not ours to chase */
    }
  }
}
