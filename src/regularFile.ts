// Reading a whole small file through a descriptor already opened (O_NONBLOCK,
// and O_NOFOLLOW where no symlink may be followed): configuration files and
// extension definitions are untrusted input, so a FIFO, a device or a huge
// file is refused instead of blocking rt or filling its memory.
import fs from "node:fs";

/** The text of the regular file open on `fd` (closed here), at most maxBytes; `refuse(why)` makes the error thrown otherwise. */
export function readOpenRegularFile(fd: number, maxBytes: number, refuse: (why: "not-regular" | "too-large") => Error): string {
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw refuse("not-regular");
    if (st.size > maxBytes) throw refuse("too-large");
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
}
