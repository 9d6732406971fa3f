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
import { ToolError } from "../base/errors.js";
import { LOCK_EMPTY_STALE_MS } from "../base/limits.js";

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

/**
 * The pid holding the lock: a number, 0 while its owner is still writing it,
 * or "invalid" when it is no lock of rt's; with the identity (device, inode)
 * of the file that was read, when one was.
 */
function lockOwner(
  state: StateStore,
  place: LockPlace,
): { owner: number | "invalid" | "gone"; id?: string; text?: string } {
  let found: { bytes: Buffer; stat: import("node:fs").Stats } | undefined;
  try {
    found = place.files.readFileStat(place.parts, { maxBytes: 256 });
  } catch {
    return { owner: "invalid" }; // a symlink or a directory where the lock file belongs
  }
  if (found === undefined) return { owner: "gone" };
  const id = fileId(found.stat);
  const text = found.bytes.toString("latin1");
  // Empty: its creator is between creating it and writing its pid (microseconds apart), or died there;
  // one left empty longer than LOCK_EMPTY_STALE_MS is a dead creator's, and stale.
  if (text === "") return { owner: Date.now() - found.stat.mtimeMs > LOCK_EMPTY_STALE_MS ? "invalid" : 0, id, text };
  const [pid, mac] = text.split("\n");
  if (!/^[1-9]\d{0,9}$/.test(pid)) return { owner: "invalid", id, text };
  if (place.context && !state.macMatches(place.context, pid, mac)) return { owner: "invalid", id, text };
  return { owner: Number(pid), id, text };
}

function fileId(st: { dev: number; ino: number }): string {
  return `${st.dev}:${st.ino}`;
}

/**
 * Removes the lock judged stale (the file `id` holding `text`, or a
 * non-file when `id` is undefined) only if the name still holds it.
 *
 * Judging and removing are two steps, and the name can change between them:
 * the owner releases and exits after its pid was read, another process takes
 * the lock, and an unconditional unlink would remove that live lock (two edits
 * in at once). Once the owner is dead, only another remover can change the
 * name (a new lock needs the name free), so removers take turns through a
 * second lock file, `<lock>.break`, held only for one read and one unlink;
 * inside it the name is read again and removed only when it is the same file
 * with the same bytes (a new lock carries its live owner's pid, so an inode
 * number reused meanwhile does not pass). A `.break` left by a remover that
 * died is removed like a stale lock, by whoever finds it (that is the one step
 * left unguarded: it needs a remover to die inside its few microseconds and two
 * others to race on its leftover).
 */
function removeStale(
  state: StateStore,
  place: LockPlace,
  id: string | undefined,
  text: string | undefined,
): "removed" | "changed" | "busy" | "stuck" {
  const parts = [...place.parts.slice(0, -1), `${place.parts[place.parts.length - 1]}.break`];
  const breaker: LockPlace = { files: place.files, parts, context: place.context && `${place.context}.break` };
  try {
    const h = place.files.openExclusive(parts, { mode: 0o600, fsync: false });
    try {
      const pid = String(process.pid);
      h.write(breaker.context ? `${pid}\n${state.mac(breaker.context, pid)}` : pid);
    } finally {
      h.close();
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "changed"; // the lock's directory went away: start again
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    const other = lockOwner(state, breaker);
    if (other.owner === "invalid" || (typeof other.owner === "number" && other.owner !== 0 && !alive(other.owner))) {
      const again = lockOwner(state, breaker);
      if (again.id === other.id && again.text === other.text) {
        try {
          place.files.unlink(parts);
        } catch {
          return "stuck"; // a directory planted at the .break name
        }
      }
      return "changed";
    }
    return "busy";
  }
  try {
    const now = lockOwner(state, place);
    if (now.owner === "gone") return "changed";
    if (now.id !== id || now.text !== text) return "changed";
    try {
      place.files.unlink(place.parts);
    } catch {
      return "stuck";
    }
    return "removed";
  } finally {
    try {
      place.files.unlink(parts);
    } catch {
      /* the directory was swapped meanwhile: not ours to chase */
    }
  }
}

/** Runs `fn` holding the lock of `rel` (a resolved, root-relative path; `_abs` is its absolute form, kept for callers). */
export async function withFileLock<T>(
  state: StateStore,
  rel: string,
  _abs: string,
  fn: () => T | Promise<T>,
): Promise<T> {
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
      const { owner, id, text } = lockOwner(state, place);
      if (owner === "gone") continue; // released meanwhile
      if (owner === "invalid" || (owner !== 0 && !alive(owner))) {
        const removed = removeStale(state, place, id, text);
        if (removed === "busy") {
          if (Date.now() > deadline)
            throw new Error(`${rel} is locked by another rt process (a stale lock is being removed); try again`);
          await sleep(5);
        } else if (removed === "stuck") {
          // Not a file, and it cannot be removed (a directory a repository committed there): every
          // rt process meets the same and locks at the root instead, as with a symlinked .rt/locks.
          if (!place.context) {
            throw new ToolError(
              `${rel}: rt cannot take its edit lock: ${place.files.abs(place.parts)} is not a lock file and cannot be removed; remove it and retry`,
            );
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
