// "Every byte rt writes goes through the workspace's one writer": no module of
// src/ but src/workspace/confinedFs.ts calls a Node API that writes, creates,
// renames, removes or changes the mode of a file or directory. (Opening a file
// for reading, "r", is allowed anywhere.) A new writer elsewhere fails here:
// use ConfinedFs (workspace.writer, state.files, confinedAt(dir) for a
// directory of the user's own) instead.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { REPO } from "../helpers.ts";

const WRITER = "src/workspace/confinedFs.ts";
const WRITING_CALLS =
  /\b(writeFileSync|writeFile|appendFileSync|appendFile|mkdirSync|mkdir|mkdtempSync|mkdtemp|renameSync|rename|rmSync|rm|rmdirSync|rmdir|unlinkSync|unlink|createWriteStream|copyFileSync|copyFile|cpSync|cp|chmodSync|chmod|fchmodSync|chownSync|chown|lchownSync|writeSync|writevSync|linkSync|link|symlinkSync|symlink|truncateSync|truncate|ftruncateSync|utimesSync|utimes|futimesSync|lutimesSync)\s*\(/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

test("only the confined writer writes: no other module of src/ calls a writing fs API", () => {
  const offenders: string[] = [];
  for (const file of sources(path.join(REPO, "src"))) {
    const rel = path.relative(REPO, file);
    if (rel === WRITER) continue;
    const text = fs.readFileSync(file, "utf8");
    // Only calls on fs-like objects (fs., fsm., fsp., promises.) or imported bare names count.
    text.split("\n").forEach((line, i) => {
      if (/^\s*(\/\/|\*)/.test(line)) return;
      const m = WRITING_CALLS.exec(line);
      if (!m) return;
      const before = line.slice(0, m.index);
      const onFs = /\b(fs|fsm|fsp|promises|fsPromises)\.\s*$/.test(before);
      const bare =
        /(^|[^.\w$])$/.test(before) &&
        new RegExp(`import\\s*\\{[^}]*\\b${m[1]}\\b[^}]*\\}\\s*from\\s*"node:fs`).test(text);
      // The executable writes its own standard output and error (descriptors 1 and 2, typed so in
      // descriptorWriter) with write(2): that is what a command prints, not a file it writes.
      if (
        rel === "src/cli.ts" &&
        line.trim() === "buf = buf.subarray(writeSync(fd, buf));" &&
        /function descriptorWriter\(fd: 1 \| 2\)/.test(text)
      )
        return;
      if (onFs || bare) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
    });
    // Opening for anything but reading.
    for (const m of text.matchAll(/\bopenSync\(([^)]*)\)/g)) {
      // Reading: the "r" string, or numeric flags built from O_RDONLY without any flag that writes or creates.
      const readOnlyFlags = /\bO_RDONLY\b/.test(m[1]) && !/\bO_(WRONLY|RDWR|CREAT|TRUNC|APPEND|EXCL)\b/.test(m[1]);
      if (!/,\s*"r"\s*$/.test(m[1]) && !readOnlyFlags) offenders.push(`${rel}: openSync(${m[1]})`);
    }
  }
  assert.deepEqual(offenders, [], "write through src/workspace/confinedFs.ts instead");
});
