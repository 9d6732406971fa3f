// The one writer. Every byte rt writes (edits, undo, state files, locks,
// sessions, saved outputs, shell spill files, write_output, the `rt` shim, the
// state key) goes through a ConfinedFs: a trusted base directory (the workspace
// root, or a directory of the user's own) and paths below it.
//
// Below the base nothing is followed: every directory on the way is opened one
// at a time with O_DIRECTORY|O_NOFOLLOW, starting from the base, and the next
// name is looked up *in the directory just opened* through
// `/proc/self/fd/N/<name>`. Node has no openat(), but that magic link resolves
// to the open directory itself, not to a path, so a directory renamed or
// swapped for a symlink meanwhile (renameat2(RENAME_EXCHANGE) in a loop) cannot
// redirect the lookup: the write lands in the directory that was opened, which
// was inside the base, or it fails. Files are created with O_EXCL|O_NOFOLLOW,
// replaced through a temp file renamed within the same open directory, and
// opened for reading or appending with O_NOFOLLOW. A symlink met anywhere below
// the base is refused, never followed, whatever it points to.
//
// Elsewhere than Linux with /proc (macOS, a container without /proc), the same
// checks run on full paths, component by component with lstat and O_NOFOLLOW:
// symlinks are still refused, but a concurrent flip between the check and the
// use is not excluded there (`raceFree()` says which mode is in force; the
// README says so too).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ToolError } from "../base/errors.js";
import { readStart } from "../base/regularFile.js";

const C = fs.constants;
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
const O_DIRECTORY = C.O_DIRECTORY ?? 0;
const O_NONBLOCK = C.O_NONBLOCK ?? 0;

let procFd: boolean | undefined;

/** True when directory-relative lookups through /proc/self/fd are available (Linux with /proc mounted). */
export function raceFree(): boolean {
  if (procFd === undefined) {
    procFd = false;
    if (process.platform === "linux") {
      try {
        // Our own open directory must be reachable through its fd link.
        const fd = fs.openSync("/", C.O_RDONLY | O_DIRECTORY);
        try {
          procFd = fs.statSync(`/proc/self/fd/${fd}/`).ino === fs.statSync("/").ino;
        } finally {
          fs.closeSync(fd);
        }
      } catch {
        procFd = false;
      }
    }
  }
  return procFd;
}

/** An error with an errno-style code (EEXIST, ENOENT...) callers can test. */
function codeOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** True for the confined writer's refusals (a symlink or a non-directory on the way, a non-regular file). */
export function isRefusal(e: unknown): boolean {
  return e instanceof ToolError && e.metadata.confined === true;
}

/** Splits a relative path ("a/b", or parts) into names, refusing "..", NUL bytes and absolute paths. */
export function pathParts(rel: string | readonly string[]): string[] {
  const raw = typeof rel === "string" ? [rel] : rel;
  const out: string[] = [];
  for (const piece of raw) {
    if (piece.includes("\0")) throw new ToolError("path contains a NUL byte: paths must be plain text");
    if (path.isAbsolute(piece))
      throw new ToolError(`${piece}: an absolute path where a path relative to the base is expected`);
    for (const name of piece.split(/[\\/]/)) {
      if (name === "" || name === ".") continue;
      if (name === "..") throw new ToolError(`${raw.join("/")}: ".." is not allowed here`);
      out.push(name);
    }
  }
  return out;
}

/** Where each open directory was when opened, by fd: error messages name that, not /proc/self/fd/N. */
const openDirs = new Map<number, string>();

/** Rewrites `/proc/self/fd/N` in an error's message to the directory it stands for (the error stays the same object). */
function humanize(e: unknown): unknown {
  if (e instanceof Error && e.message.includes("/proc/self/fd/")) {
    e.message = e.message.replace(/\/proc\/self\/fd\/(\d+)/g, (m, fd: string) => openDirs.get(Number(fd)) ?? m);
  }
  return e;
}

/** A directory opened below the base; names are looked up in it, never through a path. */
export class OpenDir {
  constructor(
    readonly fd: number,
    /** Where it was when opened (for messages and the fallback mode). */
    readonly abs: string,
  ) {
    openDirs.set(fd, abs);
  }

  /** The path that names `name` inside this very directory. */
  at(name: string): string {
    return raceFree() ? `/proc/self/fd/${this.fd}/${name}` : path.join(this.abs, name);
  }

  stat(): fs.Stats {
    return fs.fstatSync(this.fd);
  }

  /** lstat of an entry (undefined when there is none). */
  entry(name: string): fs.Stats | undefined {
    try {
      return fs.lstatSync(this.at(name));
    } catch (e) {
      if (codeOf(e) === "ENOENT") return undefined;
      throw e;
    }
  }

  names(): string[] {
    return fs.readdirSync(raceFree() ? `/proc/self/fd/${this.fd}` : this.abs);
  }

  close(): void {
    if (openDirs.get(this.fd) === this.abs) openDirs.delete(this.fd);
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
  }
}

/** An open file rt writes to (append-only session logs, spill files, locks). */
export class WriteHandle {
  private open = true;

  constructor(readonly fd: number) {}

  /** Writes all of `data`; a string goes out in one write() call (appenders rely on it: a kill cannot tear an earlier record). */
  write(data: string | Uint8Array): void {
    let buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    while (buf.length > 0) {
      const n = fs.writeSync(this.fd, buf);
      buf = buf.subarray(n);
    }
  }

  sync(): void {
    fs.fsyncSync(this.fd);
  }

  stat(): fs.Stats {
    return fs.fstatSync(this.fd);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
  }
}

export interface WriteOptions {
  /** Mode of the file; for a replaced file default its current mode, for a new one 0o666 less the umask (or `createMode`). */
  mode?: number;
  /** fsync the file and its directory (default true: user files; state files pass false for speed). */
  fsync?: boolean;
  /** Create missing parent directories. */
  mkdirs?: boolean;
  /** Mode of directories created on the way (default 0o777 less the umask). */
  dirMode?: number;
  /**
   * writeAtomic without a rename over the old file (state files): the old file is first renamed
   * aside to `<name>${ASIDE_SUFFIX}`, the new one takes the name, the old one is unlinked. On ext4
   * (auto_da_alloc) a rename over an existing file starts writing the new file's data out at once,
   * about 3 ms here; a rename to a free name does not. A reader that finds no file at the name
   * reads the one set aside (readAside): a crash between the two renames leaves the old version there.
   */
  aside?: boolean;
}

/** The name a state file is set aside under while its next version takes its place (WriteOptions.aside). */
export const ASIDE_SUFFIX = ".prev";

/** The mode bits rt ever gives a file it writes: never setuid, setgid or sticky. */
const PERMISSION_BITS = 0o777;

/** Temp names are unique per process (pid) and per call (counter); O_EXCL refuses any leftover. */
let tmpCounter = 0;

/**
 * Reads and writes below one trusted base directory, refusing symlinks at every
 * component below it (see the top of this file). `prefix` is a subdirectory of
 * the base every path is relative to (the state directory `.rt`), itself
 * checked like the rest on every call.
 */
export class ConfinedFs {
  private readonly prefix: string[];

  constructor(
    /** An absolute directory trusted as it is (the workspace root, already a real path). */
    readonly base: string,
    prefix: string | readonly string[] = [],
  ) {
    this.prefix = pathParts(prefix);
  }

  /** The same base, with paths relative to `sub` below the current prefix. */
  sub(sub: string | readonly string[]): ConfinedFs {
    return new ConfinedFs(this.base, [...this.prefix, ...pathParts(sub)]);
  }

  /** Absolute path of `rel` (for messages and for readers that only read). */
  abs(rel: string | readonly string[] = []): string {
    return path.join(this.base, ...this.prefix, ...pathParts(rel));
  }

  private shown(parts: string[]): string {
    return parts.length ? parts.join("/") : ".";
  }

  private refuse(parts: string[], upTo: number, st: fs.Stats | undefined, wholeParts: string[] = parts): ToolError {
    const where = this.shown(parts.slice(0, upTo + 1));
    const whole = this.shown(wholeParts);
    const what = st?.isSymbolicLink()
      ? "is a symbolic link; rt never writes or reads its own files through symbolic links"
      : st?.isDirectory()
        ? "was replaced while rt was opening it (a symbolic link was there a moment ago); nothing was written there"
        : st
          ? "is not a directory"
          : "disappeared while rt was opening it";
    return new ToolError(`${whole}: ${where === whole ? "it" : where} ${what} (under ${this.base})`, {
      confined: true,
    });
  }

  /**
   * Opens the directory `rel` (below the prefix) step by step without following
   * symlinks, creating missing directories when `create`. The caller closes it.
   */
  openDir(rel: string | readonly string[], opts: { create?: boolean; mode?: number } = {}, fileName?: string): OpenDir {
    const parts = [...this.prefix, ...pathParts(rel)];
    const whole = fileName === undefined ? parts : [...parts, fileName];
    let dir = new OpenDir(fs.openSync(this.base, C.O_RDONLY | O_DIRECTORY), this.base);
    try {
      for (let i = 0; i < parts.length; i++) {
        const name = parts[i];
        const next = dir.at(name);
        let fd: number | undefined;
        for (let attempt = 0; fd === undefined; attempt++) {
          try {
            if (!raceFree()) {
              const st = fs.lstatSync(next);
              if (!st.isDirectory()) throw this.refuse(parts, i, st, whole);
            }
            fd = fs.openSync(next, C.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
          } catch (e) {
            if (e instanceof ToolError) throw e;
            const code = codeOf(e);
            if (code === "ENOENT" && opts.create && attempt === 0) {
              try {
                fs.mkdirSync(next, opts.mode ?? 0o777);
              } catch (m) {
                if (codeOf(m) !== "EEXIST") throw m;
              }
              continue;
            }
            if (code === "ELOOP" || code === "ENOTDIR") throw this.refuse(parts, i, dir.entry(name), whole);
            throw e;
          }
        }
        const opened = new OpenDir(fd, path.join(dir.abs, name));
        dir.close();
        dir = opened;
      }
      return dir;
    } catch (e) {
      humanize(e);
      dir.close();
      throw e;
    }
  }

  /** Runs `fn` with the directory holding `rel` open, and the last name of `rel`. */
  private inParent<T>(
    rel: string | readonly string[],
    opts: { create?: boolean; mode?: number },
    fn: (dir: OpenDir, name: string, parts: string[]) => T,
  ): T {
    const parts = pathParts(rel);
    const name = parts.pop();
    if (name === undefined) throw new ToolError(`${this.abs()}: a file name is needed here, not the directory itself`);
    const dir = this.openDir(parts, opts, name);
    try {
      return fn(dir, name, [...this.prefix, ...parts, name]);
    } catch (e) {
      throw humanize(e);
    } finally {
      dir.close();
    }
  }

  /** Opens `name` in `dir` without following a symlink there; refuses anything but a regular file. */
  private openFileIn(dir: OpenDir, name: string, flags: number, mode: number | undefined, parts: string[]): number {
    return this.openFileStatIn(dir, name, flags, mode, parts).fd;
  }

  /** openFileIn, with the fstat it checked the file with. */
  private openFileStatIn(
    dir: OpenDir,
    name: string,
    flags: number,
    mode: number | undefined,
    parts: string[],
  ): { fd: number; stat: fs.Stats } {
    if (!raceFree() && !(flags & C.O_CREAT)) {
      const st = dir.entry(name);
      if (st?.isSymbolicLink()) throw this.refuse(parts, parts.length - 1, st);
    }
    let fd: number;
    try {
      // O_NONBLOCK: a FIFO planted where a file belongs must not hang rt on open (it is refused below).
      fd = fs.openSync(dir.at(name), flags | O_NOFOLLOW | O_NONBLOCK, mode);
    } catch (e) {
      if (codeOf(e) === "ELOOP") throw this.refuse(parts, parts.length - 1, dir.entry(name));
      throw e;
    }
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      fs.closeSync(fd);
      throw new ToolError(`${this.shown(parts)}: not a regular file (under ${this.base})`, { confined: true });
    }
    return { fd, stat };
  }

  /** Creates the directory `rel` and its missing parents (no symlink on the way). */
  mkdirs(rel: string | readonly string[], mode?: number): void {
    this.openDir(rel, { create: true, mode }).close();
  }

  /**
   * Replaces (or creates) `rel` atomically: a temp file in the same open
   * directory, written, fsynced, renamed over the name; then the directory is
   * fsynced. A crash leaves the old file or the new one, never a mix. An
   * existing file keeps its mode unless `mode` is given; a symlink or a
   * directory at the name is refused.
   */
  writeAtomic(
    rel: string | readonly string[],
    data: string | Uint8Array | readonly Uint8Array[],
    opts: WriteOptions = {},
  ): void {
    this.inParent(rel, { create: opts.mkdirs, mode: opts.dirMode }, (dir, name, parts) => {
      const existing = dir.entry(name);
      if (existing?.isSymbolicLink()) throw this.refuse(parts, parts.length - 1, existing);
      if (existing?.isDirectory()) throw new ToolError(`${this.shown(parts)}: is a directory, not a file`);
      // Permission bits only: the new file is the user's whoever owned the old one, so a setuid or
      // setgid bit kept from it would make another user's setuid file the user's (root's, run as
      // root) with content rt wrote. write(2) clears both bits when an unprivileged process writes.
      const given = opts.mode ?? existing?.mode;
      const mode = given === undefined ? undefined : given & PERMISSION_BITS;
      let tmp = "";
      let fd = -1;
      for (let attempt = 0; fd < 0; attempt++) {
        tmp = `.${name.slice(0, 96)}.rt-${process.pid}-${(tmpCounter++).toString(36)}-${Date.now().toString(36)}.tmp`;
        try {
          fd = fs.openSync(dir.at(tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, mode ?? 0o666);
        } catch (e) {
          if (codeOf(e) !== "EEXIST" || attempt >= 100) throw e;
        }
      }
      try {
        // Pieces are written one after another (a large file's edit is not joined into one copy first).
        if (Array.isArray(data)) for (const piece of data as readonly Uint8Array[]) fs.writeFileSync(fd, piece);
        else fs.writeFileSync(fd, data as string | Uint8Array);
        if (mode !== undefined) fs.fchmodSync(fd, mode);
        if (opts.fsync !== false) fs.fsyncSync(fd);
      } catch (e) {
        fs.closeSync(fd);
        this.unlinkIn(dir, tmp);
        throw e;
      }
      fs.closeSync(fd);
      const aside = opts.aside && existing?.isFile() ? this.setAside(dir, name) : undefined;
      try {
        fs.renameSync(dir.at(tmp), dir.at(name));
      } catch (e) {
        this.unlinkIn(dir, tmp);
        throw e;
      }
      // Unlinked only while it is still the file this call set aside (a concurrent writer may have
      // set its own there since).
      if (aside !== undefined && dir.entry(aside)?.ino === existing!.ino) this.unlinkIn(dir, aside);
      if (opts.fsync !== false) {
        try {
          fs.fsyncSync(dir.fd);
        } catch {
          // Some filesystems refuse fsync on directories; the rename is still atomic.
        }
      }
    });
  }

  /**
   * Renames `name` in `dir` to its aside name (WriteOptions.aside); that name, or undefined when
   * the rename failed (something not a file there, a concurrent writer took the file aside first):
   * the caller then renames over the name as writeAtomic always did.
   */
  private setAside(dir: OpenDir, name: string): string | undefined {
    // rename(2) never follows a symlink at the new name (it replaces the link) and fails on a directory.
    const aside = `${name}${ASIDE_SUFFIX}`;
    try {
      fs.renameSync(dir.at(name), dir.at(aside));
      return aside;
    } catch {
      return undefined;
    }
  }

  /** Creates `rel` with `data`; fails with code EEXIST when anything is there (a dangling symlink included). */
  createExclusive(rel: string | readonly string[], data: string | Uint8Array, opts: WriteOptions = {}): void {
    const h = this.openExclusive(rel, opts);
    try {
      h.write(data);
      if (opts.fsync !== false) h.sync();
    } finally {
      h.close();
    }
  }

  /** Creates `rel` (O_CREAT|O_EXCL|O_NOFOLLOW) and returns it open for writing; EEXIST when anything is there. */
  openExclusive(rel: string | readonly string[], opts: WriteOptions & { append?: boolean } = {}): WriteHandle {
    return this.inParent(rel, { create: opts.mkdirs, mode: opts.dirMode }, (dir, name, parts) => {
      const flags = C.O_WRONLY | C.O_CREAT | C.O_EXCL | (opts.append ? C.O_APPEND : 0);
      return new WriteHandle(this.openFileIn(dir, name, flags, (opts.mode ?? 0o666) & PERMISSION_BITS, parts));
    });
  }

  /** Opens an existing regular file `rel` for appending (never through a symlink). */
  openAppend(rel: string | readonly string[]): WriteHandle {
    return this.inParent(
      rel,
      {},
      (dir, name, parts) => new WriteHandle(this.openFileIn(dir, name, C.O_WRONLY | C.O_APPEND, undefined, parts)),
    );
  }

  /**
   * Publishes `data` as `rel` only if nothing is there yet, and only whole: it
   * is written to a temp file first, then hard-linked to the name (link() fails
   * when the name exists). A concurrent reader sees nothing or all of it.
   * Returns false when something already had the name (a dangling symlink
   * included). On a filesystem without hard links the file is created at the
   * name with O_EXCL and written there (still never twice, but a reader may
   * catch it before its bytes).
   */
  publishExclusive(rel: string | readonly string[], data: string | Uint8Array, opts: WriteOptions = {}): boolean {
    return this.inParent(rel, { create: opts.mkdirs, mode: opts.dirMode }, (dir, name, parts) => {
      if (dir.entry(name)) return false; // the common case (every rt start after the first): no temp file, no fsync
      const tmp = `.${name.slice(0, 96)}.rt-${process.pid}-${(tmpCounter++).toString(36)}-${Date.now().toString(36)}.tmp`;
      const fd = this.openFileIn(dir, tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL, (opts.mode ?? 0o666) & PERMISSION_BITS, [
        ...parts.slice(0, -1),
        tmp,
      ]);
      try {
        try {
          fs.writeFileSync(fd, data);
          if (opts.mode !== undefined) fs.fchmodSync(fd, opts.mode & PERMISSION_BITS);
          if (opts.fsync !== false) fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
        fs.linkSync(dir.at(tmp), dir.at(name));
        return true;
      } catch (e) {
        const code = codeOf(e);
        if (code === "EEXIST") return false;
        if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw e;
        // No hard links here (some FUSE and network filesystems, vfat).
        try {
          this.createExclusiveIn(dir, name, data, opts, parts);
          return true;
        } catch (c) {
          if (codeOf(c) === "EEXIST") return false;
          throw c;
        }
      } finally {
        this.unlinkIn(dir, tmp);
      }
    });
  }

  private createExclusiveIn(
    dir: OpenDir,
    name: string,
    data: string | Uint8Array,
    opts: WriteOptions,
    parts: string[],
  ): void {
    const h = new WriteHandle(
      this.openFileIn(dir, name, C.O_WRONLY | C.O_CREAT | C.O_EXCL, (opts.mode ?? 0o666) & PERMISSION_BITS, parts),
    );
    try {
      h.write(data);
      if (opts.mode !== undefined) fs.fchmodSync(h.fd, opts.mode & PERMISSION_BITS);
      if (opts.fsync !== false) h.sync();
    } finally {
      h.close();
    }
  }

  /**
   * The bytes of the regular file `rel`, opened without following symlinks, or
   * undefined when there is none. Throws ToolError for a symlink or a
   * non-regular file, and when it is larger than `maxBytes`.
   */
  readFile(rel: string | readonly string[], opts: { maxBytes?: number } = {}): Buffer | undefined {
    return this.readFileStat(rel, opts)?.bytes;
  }

  /**
   * Opens the regular file `rel` for reading, walked like every other path here
   * (no symlink followed, a directory swapped meanwhile cannot redirect it), and
   * returns the descriptor; the caller closes it. Throws ENOENT when missing.
   * Readers whose bytes may end up under the root or in an output (an edit's
   * snapshot, the lines a tool shows) read through this, not through a path
   * resolved a moment earlier.
   */
  openRead(rel: string | readonly string[]): number {
    return this.inParent(rel, {}, (dir, name, parts) => this.openFileIn(dir, name, C.O_RDONLY, undefined, parts));
  }

  /** readFile, with the file's fstat (owner, mode) taken on the very descriptor read. */
  readFileStat(
    rel: string | readonly string[],
    opts: { maxBytes?: number } = {},
  ): { bytes: Buffer; stat: fs.Stats } | undefined {
    let opened: { fd: number; stat: fs.Stats };
    try {
      opened = this.inParent(rel, {}, (dir, name, parts) =>
        this.openFileStatIn(dir, name, C.O_RDONLY, undefined, parts),
      );
    } catch (e) {
      if (codeOf(e) === "ENOENT") return undefined;
      throw e;
    }
    const { fd, stat } = opened;
    try {
      if (opts.maxBytes !== undefined && stat.size > opts.maxBytes) {
        throw new ToolError(
          `${this.shown([...this.prefix, ...pathParts(rel)])}: ${stat.size} bytes, more than the ${opts.maxBytes} allowed`,
        );
      }
      return { bytes: readOpened(fd, stat), stat };
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * The regular files `names` of the directory `dirRel`, each opened like
   * readFile, with one walk to the directory for all of them (grep notes a
   * record for every file it shows). Files that are missing, refused (a
   * symlink, not a regular file) or larger than `maxBytes` are left out; a
   * missing directory gives an empty map. `aside`: a missing name is read
   * from the version set aside under it (WriteOptions.aside), when there is one.
   */
  readFilesIn(
    dirRel: string | readonly string[],
    names: readonly string[],
    maxBytes: number,
    opts: { aside?: boolean } = {},
  ): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    if (names.length === 0) return out;
    let dir: OpenDir;
    try {
      dir = this.openDir(dirRel);
    } catch (e) {
      if (codeOf(e) === "ENOENT" || isRefusal(e)) return out;
      throw humanize(e);
    }
    try {
      const parts = [...this.prefix, ...pathParts(dirRel)];
      const read = (name: string, from = name): boolean => {
        let opened: { fd: number; stat: fs.Stats };
        try {
          opened = this.openFileStatIn(dir, from, C.O_RDONLY, undefined, [...parts, from]);
        } catch (e) {
          if (codeOf(e) === "ENOENT" || isRefusal(e)) return false;
          throw humanize(e);
        }
        const { fd, stat } = opened;
        try {
          if (stat.size <= maxBytes) out.set(name, readOpened(fd, stat));
        } finally {
          fs.closeSync(fd);
        }
        return true;
      };
      const missing: string[] = [];
      for (const name of names) {
        const [only, ...more] = pathParts(name);
        if (more.length > 0 || only !== name) throw new ToolError(`${name}: a file name is expected here, not a path`);
        if (!read(name)) missing.push(name);
      }
      if (opts.aside && missing.length > 0) {
        // A name that is free may have its last version set aside (WriteOptions.aside): looked up in
        // one listing of the directory, not by a failed open per file (a first grep misses them all).
        const present = new Set(dir.names());
        for (const name of missing)
          if (present.has(`${name}${ASIDE_SUFFIX}`)) read(name, `${name}${ASIDE_SUFFIX}`) || read(name);
      }
    } finally {
      dir.close();
    }
    return out;
  }

  /** The first `maxBytes` bytes of the regular file `rel` (undefined when missing), opened like readFile. */
  readPrefix(rel: string | readonly string[], maxBytes: number): Buffer | undefined {
    let fd: number;
    try {
      fd = this.inParent(rel, {}, (dir, name, parts) => this.openFileIn(dir, name, C.O_RDONLY, undefined, parts));
    } catch (e) {
      if (codeOf(e) === "ENOENT") return undefined;
      throw e;
    }
    try {
      const buf = Buffer.alloc(maxBytes);
      const n = fs.readSync(fd, buf, 0, maxBytes, 0);
      return buf.subarray(0, n);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** lstat of `rel` (undefined when missing or when a directory on the way is missing). */
  lstat(rel: string | readonly string[]): fs.Stats | undefined {
    try {
      return this.inParent(rel, {}, (dir, name) => dir.entry(name));
    } catch (e) {
      if (codeOf(e) === "ENOENT") return undefined;
      throw e;
    }
  }

  /** The names in directory `rel`, without a stat each (an empty list when it does not exist). */
  names(rel: string | readonly string[] = []): string[] {
    return this.inDir(rel, (dir) => dir.names()) ?? [];
  }

  /** The entries of directory `rel` with their lstat (an empty list when it does not exist). */
  list(rel: string | readonly string[] = []): Array<{ name: string; stat: fs.Stats }> {
    const entries = this.inDir(rel, (dir) => {
      const out: Array<{ name: string; stat: fs.Stats }> = [];
      for (const name of dir.names()) {
        const stat = dir.entry(name);
        if (stat) out.push({ name, stat });
      }
      return out;
    });
    return entries ?? [];
  }

  /** `fn` of directory `rel`, opened and closed around it; undefined when the directory does not exist. */
  private inDir<T>(rel: string | readonly string[], fn: (dir: OpenDir) => T): T | undefined {
    let dir: OpenDir;
    try {
      dir = this.openDir(rel);
    } catch (e) {
      if (codeOf(e) === "ENOENT") return undefined;
      throw e;
    }
    try {
      return fn(dir);
    } finally {
      dir.close();
    }
  }

  /**
   * Renames the file `rel` to `newName` in the same directory (a finished download taking its
   * name), replacing what had that name; the directory is reached without following a symlink.
   */
  renameWithin(rel: string | readonly string[], newName: string): void {
    if (newName.includes("/") || newName === "." || newName === ".." || newName === "")
      throw new Error(`not a file name: ${JSON.stringify(newName)}`);
    this.inParent(rel, {}, (dir, name) => fs.renameSync(dir.at(name), dir.at(newName)));
  }

  /** Removes the file (or symlink: the link itself) `rel`; false when there was none. */
  unlink(rel: string | readonly string[]): boolean {
    try {
      return this.inParent(rel, {}, (dir, name) => this.unlinkIn(dir, name));
    } catch (e) {
      if (codeOf(e) === "ENOENT") return false;
      throw e;
    }
  }

  /** Removes the directory `rel` when it is empty (never through a symlink); false when it is missing or not empty. */
  removeEmptyDir(rel: string | readonly string[]): boolean {
    try {
      return this.inParent(rel, {}, (dir, name) => {
        if (!dir.entry(name)?.isDirectory()) return false;
        fs.rmdirSync(dir.at(name));
        return true;
      });
    } catch (e) {
      if (["ENOENT", "ENOTEMPTY", "EEXIST"].includes(codeOf(e) ?? "")) return false;
      throw e;
    }
  }

  private unlinkIn(dir: OpenDir, name: string): boolean {
    try {
      fs.unlinkSync(dir.at(name));
      return true;
    } catch (e) {
      if (codeOf(e) === "ENOENT") return false;
      throw e;
    }
  }
}

/**
 * A ConfinedFs for a directory of the user's own (an output directory given
 * with --out, the user's config or cache directory): its nearest existing
 * ancestor is taken as it really is (the user's own symlinks followed, once),
 * the missing rest becomes the prefix, created on the first write that asks.
 */
export function confinedAt(dir: string): ConfinedFs {
  const rest: string[] = [];
  let probe = path.resolve(dir);
  for (;;) {
    try {
      const real = fs.realpathSync(probe);
      return new ConfinedFs(real, rest.reverse());
    } catch (e) {
      const parent = path.dirname(probe);
      if (parent === probe) throw e;
      rest.push(path.basename(probe));
      probe = parent;
    }
  }
}

/** A new temporary file, already unlinked, open read-write (0600, never through a symlink), or undefined. */
export function anonymousTempFile(): number | undefined {
  if (process.platform === "win32") return undefined;
  const dir = os.tmpdir();
  const name = `rt-tmp-${process.pid}-${(tmpCounter++).toString(36)}-${Math.random().toString(36).slice(2)}`;
  try {
    const fd = fs.openSync(path.join(dir, name), C.O_RDWR | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o600);
    try {
      fs.unlinkSync(path.join(dir, name));
    } catch {
      /* still usable; a leftover name in the temp directory is harmless */
    }
    return fd;
  } catch {
    return undefined;
  }
}

/**
 * The bytes of the file open on `fd`, as many as the fstat it was opened with
 * gave (openFileStatIn): that fstat is not taken again, for every state file
 * read (grep reads the record of each file it shows).
 */
function readOpened(fd: number, stat: fs.Stats): Buffer {
  const bytes = Buffer.allocUnsafe(stat.size);
  const got = readStart(fd, bytes, stat.size);
  return got === bytes.length ? bytes : bytes.subarray(0, got);
}

/**
 * A new private directory (0700, a fresh name) under the system's temporary
 * directory, for work rt throws away (a warm-up's scratch workspace), and how to
 * remove it with everything in it.
 */
export function scratchDirectory(prefix: string): { path: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { path: dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
