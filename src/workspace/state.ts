// The state directory `.rt/` at the workspace root: view windows, line IDs,
// line-offset indexes, the edit journal, sessions. It ignores itself in git
// (it holds a `.gitignore` of `*`). When persistence is off, nothing is written
// and every reader sees empty state; tools still work, statelessly.
//
// Everything here is read and written through the confined writer (no symlink
// followed anywhere under the root), and everything read back is untrusted: a
// repository can commit a `.rt/`, and a tool can write into it. Readers check
// the shape of what they get. State whose forgery would matter (the edit
// journal, line indexes, locks, session headers) also carries an HMAC with the
// user's state key (stateKey.ts) bound to its place in `.rt/`, and a file
// without a valid one is treated as no state. View windows and line IDs are
// checked by shape only: they only label and place lines of the file itself,
// and `rt open` of a small file stays free of node:crypto (several ms to load).
import fs from "node:fs";
import path from "node:path";
import { ASIDE_SUFFIX, ConfinedFs, type WriteHandle, type WriteOptions } from "./confinedFs.js";
import { hash64 } from "./fingerprint.js";
import { macEqual, macHex, stateKey, type StateKey } from "./stateKey.js";
import { STATE_FILE_MAX_BYTES } from "../base/limits.js";

export const STATE_DIR_NAME = ".rt";

/** Every state file rt writes is the user's alone. */
export const STATE_FILE_MODE = 0o600;

/** JSON state files start with `{"rt_mac":"<64 hex>",` followed by the rest of the object the MAC covers. */
const MAC_FIELD = "rt_mac";
const MAC_PREFIX = `{"${MAC_FIELD}":"`;
const MAC_PREFIX_LENGTH = MAC_PREFIX.length + 64 + 2;

/** `text` parsed as JSON when it is an object (not an array, not null); undefined otherwise. */
function jsonObject<T>(text: string): T | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

export class StateStore {
  readonly dir: string;
  /** The root, confined: every path below it is walked without following symlinks. */
  readonly rootFs: ConfinedFs;
  /** The state directory `.rt/`, confined the same way. */
  readonly files: ConfinedFs;
  private ensured = false;
  private key: StateKey | undefined;

  constructor(
    readonly root: string,
    readonly enabled: boolean,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.dir = path.join(root, STATE_DIR_NAME);
    this.rootFs = new ConfinedFs(root);
    this.files = this.rootFs.sub(STATE_DIR_NAME);
  }

  /** Absolute path of a file inside the state directory (for messages and plain reads). */
  file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  /** A stable, filesystem-safe key for a workspace-relative path (readers check the path stored inside the file). */
  static keyFor(rel: string): string {
    return hash64(Buffer.from(rel, "utf8"));
  }

  /**
   * False when `.rt` exists but is not a plain directory: a `.rt` symlink (say,
   * in a cloned repository) would lead state outside the root, so such a
   * workspace runs statelessly instead. (The confined writer refuses it anyway.)
   */
  private usable(): boolean {
    if (!this.enabled) return false;
    try {
      return fs.lstatSync(this.dir).isDirectory();
    } catch {
      return true; // not there yet: ensure() creates it
    }
  }

  ensure(): boolean {
    if (!this.enabled) return false;
    if (this.ensured) return true;
    if (this.problem !== undefined || !this.usable()) return false;
    let wrote: boolean;
    try {
      wrote = ensureStateDir(this.rootFs);
    } catch {
      return false; // a symlink or a file where .rt belongs, or a read-only checkout
    }
    // What rt keeps here (conversations, saved outputs, copies of edited files) must stay out of
    // git: a repository's own `.rt/.gitignore` that does not ignore it all means no state is written.
    // One this call just wrote is rt's own "*", not read back.
    let ignore: string | undefined = wrote ? STATE_GITIGNORE : undefined;
    if (!wrote) {
      try {
        ignore = this.files.readFile(".gitignore", { maxBytes: GITIGNORE_MAX_BYTES })?.toString("utf8");
      } catch {
        ignore = undefined; // a symlink (git does not follow it either), a directory, a FIFO
      }
    }
    if (ignore === undefined || !ignoresAllState(ignore)) {
      this.problem = `${this.file(".gitignore")} does not keep .rt/ out of git (rt's own is "*"), so rt keeps no state there: its session logs, saved outputs and copies of edited files would show up as files to commit`;
      return false;
    }
    this.ensured = true;
    return true;
  }

  /** Why state is not written although it is on (undefined when it is, or has not been tried). */
  problem: string | undefined;

  /** The user's key for this workspace's state (loaded on first use). */
  stateKey(): StateKey {
    return (this.key ??= stateKey(this.env, this.root));
  }

  /** HMAC of `data` for the state item named `context` (see stateKey.ts). */
  mac(context: string, data: string | Uint8Array): string {
    return macHex(this.stateKey().key, `rt-state-v1\0${context}`, data);
  }

  macMatches(context: string, data: string | Uint8Array, mac: unknown): boolean {
    return typeof mac === "string" && /^[0-9a-f]{64}$/.test(mac) && macEqual(this.mac(context, data), mac);
  }

  /**
   * The JSON object at `parts`: read without following symlinks, at most
   * STATE_FILE_MAX_BYTES. Missing, corrupt or refused state is undefined.
   * Untrusted: the caller checks its shape (or uses readSignedJson).
   */
  readJson<T>(...parts: string[]): T | undefined {
    const text = this.readStateText(parts);
    return text === undefined ? undefined : jsonObject<T>(text);
  }

  /**
   * The JSON state at `parts`, if it is rt's own: read like readJson, with a
   * valid MAC for this place. Anything else (planted, edited, moved from
   * elsewhere) is undefined. Callers still check the shape: the MAC says who
   * wrote it, not that it is sane.
   */
  readSignedJson<T>(...parts: string[]): T | undefined {
    const text = this.readStateText(parts);
    const body = text === undefined ? undefined : this.signedBody(parts, text);
    return body === undefined ? undefined : jsonObject<T>(body);
  }

  /**
   * The file at `parts` read once, for state that takes rt's own copy as it is
   * and checks anyone else's: with a valid MAC, what readSignedJson gives and
   * `signed: true`; otherwise what readJson gives and `signed: false`.
   */
  readJsonNotingMac<T>(...parts: string[]): { value: T; signed: boolean } | undefined {
    const text = this.readStateText(parts);
    return text === undefined ? undefined : this.jsonNotingMac<T>(parts, text);
  }

  /**
   * readJsonNotingMac for many files of one state directory (`dir`, e.g.
   * "ids"), read with one walk to it: the values by file name, without the
   * files that are missing, refused or not JSON objects.
   */
  readManyJsonNotingMac<T>(dir: string, names: readonly string[]): Map<string, { value: T; signed: boolean }> {
    const out = new Map<string, { value: T; signed: boolean }>();
    if (names.length === 0 || !this.usable()) return out;
    let files: Map<string, Buffer>;
    try {
      files = this.files.readFilesIn(dir, names, STATE_FILE_MAX_BYTES, { aside: true });
    } catch {
      return out; // refused or unreadable state is treated as no state
    }
    for (const [name, bytes] of files) {
      const read = this.jsonNotingMac<T>([dir, name], bytes.toString("utf8"));
      if (read) out.set(name, read);
    }
    return out;
  }

  private jsonNotingMac<T>(parts: string[], text: string): { value: T; signed: boolean } | undefined {
    const body = this.signedBody(parts, text);
    const value = jsonObject<T>(body ?? text);
    return value === undefined ? undefined : { value, signed: body !== undefined };
  }

  /** The text of a state file, read without following symlinks, at most STATE_FILE_MAX_BYTES; undefined when missing or refused. */
  private readStateText(parts: string[]): string | undefined {
    return this.readBytes(parts, STATE_FILE_MAX_BYTES)?.toString("utf8");
  }

  /** The JSON object a MAC-prefixed state file holds, when its MAC is valid for `parts` (see writeSignedJson). */
  private signedBody(parts: string[], text: string): string | undefined {
    if (
      text.length < MAC_PREFIX_LENGTH + 1 ||
      !text.startsWith(MAC_PREFIX) ||
      text.slice(MAC_PREFIX_LENGTH - 2, MAC_PREFIX_LENGTH) !== '",'
    )
      return undefined;
    const mac = text.slice(MAC_PREFIX.length, MAC_PREFIX.length + 64);
    const body = `{${text.slice(MAC_PREFIX_LENGTH)}`;
    try {
      return this.macMatches(parts.join("/"), body, mac) ? body : undefined;
    } catch {
      return undefined; // no key to check it with: not rt's own, as far as this run can tell
    }
  }

  /** Writes JSON state (an object). */
  writeJson(value: object, ...parts: string[]): void {
    this.writeText(JSON.stringify(value), ...parts);
  }

  /** Writes JSON state (an object) with its MAC (see readSignedJson). */
  writeSignedJson(value: object, ...parts: string[]): void {
    this.writeText(this.signedJsonText(value, parts), ...parts);
  }

  /** The text writeSignedJson writes for `value` at `parts` (one line: JSON has no raw newline). */
  signedJsonText(value: object, parts: string[]): string {
    const body = JSON.stringify(value);
    if (!body.startsWith("{") || body === "{}") throw new Error("state JSON must be a non-empty object");
    const mac = this.mac(parts.join("/"), body);
    return `${MAC_PREFIX}${mac}",${body.slice(1)}`;
  }

  /** The object in `text` (as signedJsonText made it) when its MAC is valid for `parts`; undefined otherwise. */
  parseSignedJson<T>(parts: string[], text: string): T | undefined {
    const body = this.signedBody(parts, text);
    return body === undefined ? undefined : jsonObject<T>(body);
  }

  /** The names in a state directory (empty when it is missing or refused). */
  listNames(...dirParts: string[]): string[] {
    if (!this.usable()) return [];
    try {
      return this.files.names(dirParts);
    } catch {
      return [];
    }
  }

  /**
   * writeJson for state that is only a cache or a convenience (view windows, line
   * IDs, line indexes): when it cannot be written (a read-only checkout, a full
   * disk, a mangled .rt/), the tool still works and the state lives in memory only.
   */
  writeJsonBestEffort(value: object, ...parts: string[]): boolean {
    try {
      this.writeJson(value, ...parts);
      return true;
    } catch {
      return false;
    }
  }

  /** writeSignedJson for caches (line indexes): false when it cannot be written. */
  writeSignedJsonBestEffort(value: object, ...parts: string[]): boolean {
    try {
      this.writeSignedJson(value, ...parts);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Replaces a state file atomically, creating its directory. Mode 0600 whatever
   * the umask or the mode of a file already there (one a repository planted):
   * state holds copies of the user's files and outputs, readable by the user
   * alone like the files they came from.
   *
   * No fsync, and no rename over the old file (the old one is set aside first,
   * WriteOptions.aside): each costs milliseconds per edit, and neither is needed.
   * A process killed at any moment leaves the old version or the new one (at
   * the name, or set aside, which every reader here falls back to: readBytes).
   * After a power loss a state file may be lost or empty: rt's state is checked
   * when read (its shape, rt's MAC, the hashes it names), and state that fails
   * is no state. Line IDs are then made again from the file, the edit journal
   * has no entry to undo (undo refuses rather than restore anything else), and
   * the user's own file, written with fsync, is as the last edit left it.
   */
  writeText(text: string | Buffer, ...parts: string[]): void {
    if (!this.ensure()) return;
    this.files.writeAtomic(parts, text, { fsync: false, mkdirs: true, mode: STATE_FILE_MODE, aside: true });
  }

  /**
   * writeText for a file under a name never used before: created in place
   * (O_EXCL, no symlink followed), not through a temp file and a rename; a name
   * already there is EEXIST. A write that fails leaves no partial file.
   */
  writeNewText(text: string | Buffer, ...parts: string[]): void {
    if (!this.ensure()) return;
    try {
      this.files.createExclusive(parts, text, { fsync: false, mkdirs: true, mode: STATE_FILE_MODE });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") this.remove(...parts);
      throw e;
    }
  }

  /**
   * The bytes of a state file, read without following symlinks (undefined when missing or refused).
   * When the name is free, the version set aside while writeText replaced it (a writer killed
   * between its two renames, or caught between them now), then the name again.
   */
  readBytes(parts: string[], maxBytes: number): Buffer | undefined {
    return this.readAside(parts, (p) => this.files.readFile(p, { maxBytes }));
  }

  /** The first `maxBytes` bytes of a state file (undefined when missing or refused), found like readBytes. */
  readPrefix(parts: string[], maxBytes: number): Buffer | undefined {
    return this.readAside(parts, (p) => this.files.readPrefix(p, maxBytes));
  }

  private readAside(parts: string[], read: (parts: string[]) => Buffer | undefined): Buffer | undefined {
    if (!this.usable()) return undefined;
    try {
      const found = read(parts);
      if (found !== undefined || parts.length === 0) return found;
      const aside = [...parts.slice(0, -1), `${parts[parts.length - 1]}${ASIDE_SUFFIX}`];
      return read(aside) ?? read(parts);
    } catch {
      return undefined; // corrupt or refused state is treated as no state
    }
  }

  /** Creates a new state file and returns it open for writing (EEXIST when the name is taken); undefined when state is off. */
  create(parts: string[], opts: WriteOptions & { append?: boolean } = {}): WriteHandle | undefined {
    if (!this.ensure()) return undefined;
    return this.files.openExclusive(parts, { mkdirs: true, ...opts, mode: STATE_FILE_MODE });
  }

  /** Opens an existing state file for appending (never through a symlink). */
  openAppend(parts: string[]): WriteHandle {
    return this.files.openAppend(parts);
  }

  /** The regular files of a state directory with their modification times (empty when missing or refused). */
  listFiles(...dirParts: string[]): Array<{ name: string; mtimeMs: number }> {
    if (!this.usable()) return [];
    try {
      return this.files
        .list(dirParts)
        .filter((e) => e.stat.isFile())
        .map((e) => ({ name: e.name, mtimeMs: e.stat.mtimeMs }));
    } catch {
      return [];
    }
  }

  /**
   * Deletes the oldest files (by modification time) of a state directory so
   * that at most `keep` remain: saved outputs would otherwise pile up forever.
   */
  prune(keep: number, ...dirParts: string[]): void {
    const files = this.listFiles(...dirParts);
    files.sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const f of files.slice(keep)) this.remove(...dirParts, f.name);
  }

  /** Removes a state file (and a version of it set aside by a writer killed while replacing it, if any). */
  remove(...parts: string[]): void {
    if (!this.usable()) return;
    try {
      this.files.unlink(parts);
      if (parts.length > 0) this.files.unlink([...parts.slice(0, -1), `${parts[parts.length - 1]}${ASIDE_SUFFIX}`]);
    } catch {
      /* a symlink on the way, or already gone: nothing of ours to remove there */
    }
  }
}

/** The `.gitignore` rt writes in a `.rt/` it creates. */
const STATE_GITIGNORE = "*\n";

/**
 * Creates `.rt/` at the root of `rootFs` and its `.gitignore` of `*`, both
 * without following symlinks (a `.gitignore` that exists in any form, a
 * dangling symlink included, is left alone). Throws when `.rt` is not a directory.
 * True when this call wrote the `.gitignore`.
 */
export function ensureStateDir(rootFs: ConfinedFs): boolean {
  rootFs.mkdirs(STATE_DIR_NAME);
  // Published whole (a temp file hard-linked to the name): another rt process starting at the
  // same moment reads nothing or "*", never an empty file it would take for a repository's own
  // .gitignore (it would then keep no state, and lock elsewhere than this one).
  return rootFs.publishExclusive([STATE_DIR_NAME, ".gitignore"], STATE_GITIGNORE, { mode: 0o644, fsync: false });
}

const GITIGNORE_MAX_BYTES = 64 * 1024;

/** Files a project may keep in git under `.rt/` (its configuration), un-ignored with `!name`. */
const PROJECT_FILES = new Set([".gitignore", "config.json"]);

/**
 * Whether the text of `.rt/.gitignore` keeps everything rt writes under `.rt/`
 * out of git: a line ignoring every entry (`*`, `/*`, `**`), and no negation
 * (`!pattern`) other than of the project's own files (`!config.json`,
 * `!.gitignore`). Git cannot re-include a file below an ignored directory, so
 * nothing deeper (a `.rt/sessions/.gitignore`) can undo that. Deliberately
 * strict: a negation it does not recognise counts as un-ignoring.
 */
export function ignoresAllState(text: string): boolean {
  let all = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "").replace(/(?<!\\)[ \t]+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("!")) {
      if (!PROJECT_FILES.has(line.slice(1).replace(/^\//, "").toLowerCase())) return false;
      continue;
    }
    if (["*", "/*", "**", "/**"].includes(line)) all = true;
  }
  return all;
}

/** RT_STATE=off (or the seed's RAGIX_VIEW_STATE=off) disables persistence. */
export function stateEnabledFromEnv(env: NodeJS.ProcessEnv): boolean {
  const off = (v: string | undefined) => v !== undefined && /^(off|0|false|no)$/i.test(v.trim());
  return !(off(env.RT_STATE) || off(env.RAGIX_VIEW_STATE));
}
