// The edit journal behind `rt undo`: before rt changes a file, the old bytes
// are saved under `.rt/journal/<key>/`, with the hash of the bytes rt wrote.
// Undo restores the newest entry, but only if the file still holds exactly
// what rt wrote (otherwise someone else changed it since, and undoing would
// lose their work). The newest JOURNAL_KEEP entries per file are kept.
//
// Each entry is one file, `<seq>-<16 random hex>.entry`, created under a new
// name (O_EXCL) before the edited file is written: a first line describing the
// entry (signed JSON, see EntryHeader), then the saved bytes. An edit writes
// no other journal file: the entries of a file are the entry files in its
// directory, the newest the one with the highest sequence number. (Earlier
// versions kept a signed `index.json` listing the entries, rewritten on every
// edit, and the bytes in `<seq>-<hex>.before` files: such a journal is still
// read, its entries older than any entry file, and shrinks as they are undone
// or pushed out.) Entry files are not fsynced, like all of rt's state (see
// StateStore.writeText): after a power loss an entry may be lost or cut short,
// and such an entry is no entry (its first line fails its MAC, or its bytes
// their SHA-256), so undo refuses instead of restoring anything else.
//
// The journal is read back as untrusted input: an entry's first line carries
// rt's MAC for its place (StateStore.parseSignedJson), so a committed or
// planted entry, or one written by a tool, is no entry at all; it names the
// SHA-256 of the bytes it saved, which must match. Files are read from regular
// files inside the state directory, never through a symlink. The mode
// recorded is only ever narrowed when restored (see restoredMode).
import type { StateStore } from "./state.js";
import { StateStore as Store } from "./state.js";
import { randomHex, sha256Hex } from "./stateKey.js";
import { ToolError } from "../base/errors.js";
import { EDIT_MAX_BYTES, JOURNAL_ENTRY_HEADER_MAX_BYTES, JOURNAL_KEEP } from "../base/limits.js";

export interface Entry {
  seq: number;
  /** Hash of the content rt wrote. */
  afterHash: string;
  /** Whether the file existed before (undo of a creation deletes it). */
  existed: boolean;
  /** SHA-256 of the saved bytes, when the file existed. */
  beforeSha256?: string;
  /**
   * The file holding the saved bytes: `<seq>-<16 random hex>.before`, a name a
   * repository cannot guess, so it cannot track it (a tracked file rt wrote a
   * copy of `.env` into would go out with `git commit -a`). Entries of earlier
   * versions have none: theirs is `<seq>.before`.
   */
  saved?: string;
  mode?: number;
  time: string;
  tool: string;
}

interface JournalIndex {
  version: 2;
  path: string;
  next: number;
  entries: Entry[];
}

const HEX64 = /^[0-9a-f]{64}$/;

function validEntry(e: unknown, next: number): e is Entry {
  if (e === null || typeof e !== "object") return false;
  const x = e as Record<string, unknown>;
  if (!Number.isSafeInteger(x.seq) || (x.seq as number) < 1 || (x.seq as number) >= next) return false;
  if (
    typeof x.afterHash !== "string" ||
    typeof x.existed !== "boolean" ||
    typeof x.tool !== "string" ||
    typeof x.time !== "string"
  )
    return false;
  if (x.existed && !(typeof x.beforeSha256 === "string" && HEX64.test(x.beforeSha256))) return false;
  if (
    x.mode !== undefined &&
    !(Number.isSafeInteger(x.mode) && (x.mode as number) >= 0 && (x.mode as number) <= 0o7777)
  )
    return false;
  if (
    x.saved !== undefined &&
    !(typeof x.saved === "string" && new RegExp(`^${x.seq as number}-[0-9a-f]{16}\\.before$`).test(x.saved))
  )
    return false;
  return true;
}

/** The name of the file holding an entry's saved bytes. */
function savedName(e: Entry): string {
  return e.saved ?? `${e.seq}.before`;
}

function validIndex(idx: JournalIndex | undefined, rel: string): idx is JournalIndex {
  if (!idx || idx.version !== 2 || idx.path !== rel || !Number.isSafeInteger(idx.next) || idx.next < 1) return false;
  if (!Array.isArray(idx.entries) || idx.entries.length > JOURNAL_KEEP) return false;
  let last = 0;
  for (const e of idx.entries) {
    if (!validEntry(e, idx.next) || e.seq <= last) return false;
    last = e.seq;
  }
  return true;
}

/**
 * The mode undo gives a file: the recorded one, narrowed to the bits the file
 * has now and to plain permission bits. Undo never adds a permission the file
 * does not have at that moment, and never sets setuid, setgid or sticky.
 */
export function restoredMode(recorded: number | undefined, current: number): number {
  const now = current & 0o777;
  return recorded === undefined ? now : recorded & now;
}

/** The first line of an entry file: the entry, for the file `path`. */
interface EntryHeader {
  version: 3;
  path: string;
  entry: Entry;
}

const ENTRY_NAME = /^([1-9][0-9]{0,14})-[0-9a-f]{16}\.entry$/;

/** One entry of a file's journal as found in its directory: an entry file, or an entry of an earlier index. */
type Item = { seq: number; name: string } | { seq: number; legacy: Entry };

/** The entry `e` restored by undo, with its saved bytes, and how to drop it once undone. */
export interface Latest {
  entry: Entry;
  before: Buffer | null;
  /** Older entries that can still be undone. */
  remaining: number;
  /** Removes this entry (after it was undone). */
  pop(): void;
}

export class Journal {
  constructor(private state: StateStore) {}

  get enabled(): boolean {
    return this.state.enabled;
  }

  /** An earlier version's index of `rel`'s journal (`index.json`), when there is a valid one. */
  private legacyIndex(rel: string): JournalIndex | undefined {
    const idx = this.state.readSignedJson<JournalIndex>("journal", Store.keyFor(rel), "index.json");
    return validIndex(idx, rel) ? idx : undefined;
  }

  /** The entries of `rel`'s journal, oldest first, from one listing of its directory; and the next sequence number. */
  private items(rel: string): { items: Item[]; next: number; legacy?: JournalIndex } {
    const names = this.state.listNames("journal", Store.keyFor(rel));
    const items: Item[] = [];
    let next = 1;
    let legacy: JournalIndex | undefined;
    if (names.includes("index.json")) {
      legacy = this.legacyIndex(rel);
      if (legacy) {
        next = legacy.next;
        for (const e of legacy.entries) items.push({ seq: e.seq, legacy: e });
      }
    }
    for (const name of names) {
      const m = ENTRY_NAME.exec(name);
      if (!m) continue;
      const seq = Number(m[1]);
      // Every entry file counts for the numbering, rt's or not: a new entry is always the newest.
      if (seq >= next) next = seq + 1;
      if (!items.some((it) => it.seq === seq)) items.push({ seq, name });
    }
    items.sort((a, b) => a.seq - b.seq);
    return { items, next, legacy };
  }

  /** The entry described by the first line of an entry file's bytes, when rt wrote it there for `rel`. */
  private header(rel: string, name: string, seq: number, bytes: Buffer): { entry: Entry; body: number } | undefined {
    const eol = bytes.indexOf(10);
    if (eol < 0 || eol > JOURNAL_ENTRY_HEADER_MAX_BYTES) return undefined;
    const h = this.state.parseSignedJson<EntryHeader>(
      ["journal", Store.keyFor(rel), name],
      bytes.toString("utf8", 0, eol),
    );
    if (!h || h.version !== 3 || h.path !== rel || !validEntry(h.entry, seq + 1) || h.entry.seq !== seq)
      return undefined;
    if (h.entry.saved !== undefined) return undefined;
    return { entry: h.entry, body: eol + 1 };
  }

  /**
   * Records that `rel` is about to change from `before` (null: did not exist) to
   * content hashing to `afterHash`. The entry is written before the file is (a
   * crash in between can still be undone): one new file, nothing rewritten. The
   * caller then calls `commit()` once the file is written, or `rollback()` when
   * writing it failed (a full disk), so that a failed edit leaves no entry for
   * a change that never happened. Entries pushed out by the JOURNAL_KEEP limit
   * are removed only on commit.
   */
  record(
    rel: string,
    before: Buffer | null,
    afterHash: string,
    tool: string,
    mode?: number,
  ): { commit(): void; rollback(): void } {
    if (!this.state.enabled) return { commit() {}, rollback() {} };
    const key = Store.keyFor(rel);
    const { items, next: seq, legacy } = this.items(rel);
    const name = `${seq}-${randomHex(8)}.entry`;
    const entry: Entry = { seq, afterHash, existed: before !== null, time: new Date().toISOString(), tool };
    if (before) entry.beforeSha256 = sha256Hex(before);
    if (mode !== undefined) entry.mode = mode & 0o7777;
    const header: EntryHeader = { version: 3, path: rel, entry };
    const line = Buffer.from(`${this.state.signedJsonText(header, ["journal", key, name])}\n`, "utf8");
    // Under a name never used: created in place (no temp file, no rename), the header and the bytes in one write.
    this.state.writeNewText(before ? Buffer.concat([line, before]) : line, "journal", key, name);
    const dropped = items.slice(0, Math.max(0, items.length + 1 - JOURNAL_KEEP));
    return {
      commit: () => this.drop(rel, dropped, legacy),
      rollback: () => this.state.remove("journal", key, name),
    };
  }

  /** Removes entries: entry files, and an earlier version's entries (its index rewritten without them). */
  private drop(rel: string, items: readonly Item[], legacy: JournalIndex | undefined): void {
    const key = Store.keyFor(rel);
    const gone = new Set<number>();
    for (const it of items) {
      if ("name" in it) this.state.remove("journal", key, it.name);
      else {
        this.state.remove("journal", key, savedName(it.legacy));
        gone.add(it.seq);
      }
    }
    if (!legacy || gone.size === 0) return;
    const entries = legacy.entries.filter((e) => !gone.has(e.seq));
    if (entries.length === 0) this.state.remove("journal", key, "index.json");
    else this.state.writeSignedJson({ ...legacy, entries }, "journal", key, "index.json");
  }

  /**
   * The newest entry and its saved bytes, if any. An entry file that is not
   * rt's (no valid MAC for its place: planted, or cut short by a crash while
   * it was written, before the file was) is passed over. Throws ToolError when
   * the saved bytes are gone or are not the ones the entry names (replaced, a
   * symlink, a directory): undo must not restore anything else.
   */
  latest(rel: string): Latest | undefined {
    const key = Store.keyFor(rel);
    const { items, legacy } = this.items(rel);
    const refused = () =>
      new ToolError(
        `${rel}: the copy rt saved before its last edit (.rt/journal/) is missing or was changed since; ` +
          "undo refused, nothing was written. Use git to restore the file.",
      );
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      const remaining = () => items.slice(0, i).filter((older) => this.authentic(rel, older)).length;
      if ("legacy" in it) {
        let before: Buffer | null = null;
        if (it.legacy.existed) {
          const saved = this.state.readBytes(["journal", key, savedName(it.legacy)], EDIT_MAX_BYTES);
          if (!saved || sha256Hex(saved) !== it.legacy.beforeSha256) throw refused();
          before = saved;
        }
        return { entry: it.legacy, before, remaining: remaining(), pop: () => this.drop(rel, [it], legacy) };
      }
      const bytes = this.state.readBytes(["journal", key, it.name], EDIT_MAX_BYTES + JOURNAL_ENTRY_HEADER_MAX_BYTES);
      // A name in the listing that cannot be read as a regular file (a symlink, a directory) is not passed over.
      if (!bytes) throw refused();
      const h = this.header(rel, it.name, it.seq, bytes);
      if (!h) continue;
      let before: Buffer | null = null;
      if (h.entry.existed) {
        before = bytes.subarray(h.body);
        if (sha256Hex(before) !== h.entry.beforeSha256) throw refused();
      }
      return { entry: h.entry, before, remaining: remaining(), pop: () => this.drop(rel, [it], legacy) };
    }
    return undefined;
  }

  /** Whether an entry is rt's own (an entry file's first line checked; an earlier index's entries already were). */
  private authentic(rel: string, it: Item): boolean {
    if ("legacy" in it) return true;
    const head = this.state.readPrefix(["journal", Store.keyFor(rel), it.name], JOURNAL_ENTRY_HEADER_MAX_BYTES + 1);
    return head !== undefined && this.header(rel, it.name, it.seq, head) !== undefined;
  }

  /** Drops the newest entry (after it was undone). */
  pop(rel: string): void {
    this.latest(rel)?.pop();
  }
}
