// Atomic file replacement: write a temp file in the same directory, fsync it,
// rename it over the target, fsync the directory. A crash at any moment leaves
// either the old file or the new one, never a mix. The file's mode is kept.
import fs from "node:fs";
import path from "node:path";

/** Temp names are unique per process (pid) and per call (counter); "wx" refuses any leftover. */
let tmpCounter = 0;

export interface AtomicWriteOptions {
  /** Mode for the new file; defaults to the existing file's mode, else 0o644 less the umask. */
  mode?: number;
  /** fsync file and directory (true for user files; state files skip it for speed). */
  fsync?: boolean;
}

/** A new temp file next to the target; a name already taken (a leftover, another machine's pid) is skipped. */
function createTemp(dir: string, base: string, mode: number): { tmp: string; fd: number } {
  for (let attempt = 0; ; attempt++) {
    const tmp = path.join(dir, `.${base}.rt-${process.pid}-${(tmpCounter++).toString(36)}-${Date.now().toString(36)}.tmp`);
    try {
      return { tmp, fd: fs.openSync(tmp, "wx", mode) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw e;
    }
  }
}

export function writeFileAtomic(target: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const dir = path.dirname(target);
  let mode = opts.mode;
  if (mode === undefined) {
    try {
      mode = fs.statSync(target).mode & 0o7777;
    } catch {
      mode = undefined;
    }
  }
  const { tmp, fd } = createTemp(dir, path.basename(target), mode ?? 0o666);
  try {
    fs.writeFileSync(fd, data);
    if (mode !== undefined) fs.fchmodSync(fd, mode);
    if (opts.fsync !== false) fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, target);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  if (opts.fsync !== false) {
    try {
      const dfd = fs.openSync(dir, "r");
      fs.fsyncSync(dfd);
      fs.closeSync(dfd);
    } catch {
      // Some filesystems refuse fsync on directories; the rename is still atomic.
    }
  }
}
