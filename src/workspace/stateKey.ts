// The per-user key that authenticates rt's own state. What rt reads back from
// `.rt/` and must not be forged (the edit journal, line indexes, lock files,
// the header of a session log) carries an HMAC-SHA256 made with this key;
// anything without a valid one (a repository's committed `.rt/`, a file
// planted by a tool or a program, state from another user) is not rt's and is
// ignored.
//
// The key is 32 random bytes, hex, in `state.key` of the user's configuration
// directory (`$XDG_CONFIG_HOME/rt/`, else `~/.config/rt/`), created mode 0600
// (its directory 0700 when rt creates it) the first time state is written. It
// is used only when it is a regular file owned by the user and readable by
// nobody else, and when it does not lie inside the workspace (a repository
// could ship one). Otherwise rt uses a key of its own process: state is then
// believed only within that process (later processes cannot undo its edits),
// and `stateKeyProblem` says why.
//
// node:crypto is loaded on first use (the CLI bundle makes every built-in lazy;
// loading it costs several milliseconds), so commands that touch no signed
// state, `rt open` of a small file among them, do not pay for it.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { confinedAt } from "./confinedFs.js";
import { isWithin } from "./paths.js";
import { userConfigDir } from "../base/trustStore.js";

export const STATE_KEY_FILE = "state.key";
const KEY_BYTES = 32;

export interface StateKey {
  key: Buffer;
  /** The key file, when the key is the persistent one. */
  file?: string;
  /** Why the persistent key is not used (the key is then this process's own). */
  problem?: string;
}

/** The real path of `p`'s nearest existing ancestor, with the rest appended. */
function realNearest(p: string): string {
  const rest: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      return path.join(fs.realpathSync(cur), ...rest.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

const loaded = new Map<string, StateKey>();
const ownKeys = new Map<string, Buffer>();

function ownKey(dir: string, problem: string): StateKey {
  let key = ownKeys.get(dir);
  if (!key) ownKeys.set(dir, (key = crypto.randomBytes(KEY_BYTES)));
  return { key, problem };
}

/** Why `stat` (of the key file or its directory) cannot be trusted as the user's own, or undefined. */
function notPrivate(stat: fs.Stats, what: string): string | undefined {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined && stat.uid !== uid) return `${what} belongs to another user (uid ${stat.uid})`;
  if (stat.mode & 0o077)
    return `${what} is accessible to other users (mode ${(stat.mode & 0o777).toString(8)}; it must be 600)`;
  return undefined;
}

function readKey(dir: string): StateKey {
  const files = confinedAt(dir);
  const dirStat = files.openDir([], { create: true, mode: 0o700 });
  try {
    const st = dirStat.stat();
    const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
    if (uid !== undefined && st.uid !== uid) return ownKey(dir, `${dir} belongs to another user`);
  } finally {
    dirStat.close();
  }
  let found = files.readFileStat(STATE_KEY_FILE, { maxBytes: 4096 });
  if (!found) {
    files.publishExclusive(STATE_KEY_FILE, `${crypto.randomBytes(KEY_BYTES).toString("hex")}\n`, { mode: 0o600 });
    found = files.readFileStat(STATE_KEY_FILE, { maxBytes: 4096 });
    if (!found) return ownKey(dir, `${path.join(dir, STATE_KEY_FILE)} could not be created`);
  }
  const file = path.join(dir, STATE_KEY_FILE);
  const why = notPrivate(found.stat, file);
  if (why) return ownKey(dir, why);
  const hex = found.bytes.toString("latin1").trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) return ownKey(dir, `${file} is not an rt state key (64 hex digits)`);
  return { key: Buffer.from(hex, "hex"), file };
}

/** The key for state of the workspace at `root` (see the top of this file). */
export function stateKey(env: NodeJS.ProcessEnv, root: string): StateKey {
  const dir = userConfigDir(env);
  if (isWithin(root, path.resolve(dir)) || isWithin(root, realNearest(dir))) {
    return ownKey(
      dir,
      `the configuration directory ${dir} is inside the workspace, where a repository could ship a key`,
    );
  }
  let k = loaded.get(dir);
  if (!k) {
    try {
      k = readKey(dir);
    } catch (e) {
      k = ownKey(dir, `${path.join(dir, STATE_KEY_FILE)}: ${(e as Error).message}`);
    }
    loaded.set(dir, k);
  }
  return k;
}

/** HMAC-SHA256 of `data` under `key`, bound to `context` (what the data is and where it lives), as hex. */
export function macHex(key: Buffer, context: string, data: string | Uint8Array): string {
  return crypto.createHmac("sha256", key).update(context, "utf8").update("\0").update(data).digest("hex");
}

/** Constant-time comparison of two hex MACs. */
export function macEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return crypto.timingSafeEqual(Buffer.from(a, "latin1"), Buffer.from(b, "latin1"));
}

/** `bytes` random bytes as hex (names a repository cannot guess). */
export function randomHex(bytes: number): string {
  return crypto.randomBytes(bytes).toString("hex");
}

/** SHA-256 of bytes, as hex (journal entries name the exact bytes they saved). */
export function sha256Hex(data: Uint8Array): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}
