// What a rewind must give back, as tests compare it: every file's mode and
// content hash below a directory (its .git and .rt left out), and its directories.
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";

/** path → sha256 and mode of every regular file below `dir` (its .git and .rt excluded), and the directories. */
export function fileHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      if (d === dir && (name === ".git" || name === ".rt")) continue;
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isDirectory()) {
        out[`${rel}/`] = "dir";
        walk(p);
      } else
        out[rel] =
          `${(st.mode & 0o777).toString(8)} ${crypto.createHash("sha256").update(fs.readFileSync(p)).digest("hex")}`;
    }
  };
  walk(dir);
  return out;
}
