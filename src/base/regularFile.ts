// Reading a whole small file through a descriptor already opened (O_NONBLOCK,
// and O_NOFOLLOW where no symlink may be followed): configuration files and
// extension definitions are untrusted input, so a FIFO, a device or a huge
// file is refused instead of blocking rt or filling its memory.
import fs from "node:fs";

/** The text of the regular file open on `fd` (closed here), at most maxBytes; `refuse(why)` makes the error thrown otherwise. */
export function readOpenRegularFile(
  fd: number,
  maxBytes: number,
  refuse: (why: "not-regular" | "too-large") => Error,
): string {
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw refuse("not-regular");
    if (st.size > maxBytes) throw refuse("too-large");
    const buf = Buffer.alloc(st.size);
    return buf.subarray(0, readStart(fd, buf, st.size)).toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads the first `size` bytes of the file open on `fd` into `buf` (from its
 * start), in as many reads as it takes; returns how many were read (fewer when
 * the file ended first, say because it shrank since its size was taken).
 */
export function readStart(fd: number, buf: Buffer, size: number): number {
  let got = 0;
  for (let n = -1; n !== 0 && got < size; got += n) n = fs.readSync(fd, buf, got, size - got, got);
  return got;
}
