// Reading extension files (custom tools, commands) from a directory. A
// project's directories (.rt/tools, .rt/commands, .claude/commands) are
// committed by whoever wrote the repository, so: no symbolic link is followed
// (neither the directory nor a file), only regular files are read, each at
// most EXTENSION_FILE_MAX_BYTES, and at most EXTENSION_DIR_MAX_FILES of them.
import fs from "node:fs";
import { readOpenRegularFile } from "../base/regularFile.js";
import path from "node:path";
import { EXTENSION_DIR_MAX_FILES, EXTENSION_FILE_MAX_BYTES } from "../base/limits.js";

export interface DefinitionFile {
  /** Absolute path. */
  file: string;
  text: string;
}

export interface DirectoryRead {
  files: DefinitionFile[];
  /** Files that could not be read, each with why. */
  problems: Array<{ file: string; message: string }>;
}

/** The directory's entries whose names end in one of `extensions`, sorted by name; nothing when it does not exist. */
export function readDefinitionDir(dir: string, extensions: readonly string[], project: boolean): DirectoryRead {
  const out: DirectoryRead = { files: [], problems: [] };
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return out;
  }
  if (project && st.isSymbolicLink()) {
    out.problems.push({ file: dir, message: "a symbolic link; rt does not read project extensions through one" });
    return out;
  }
  if (project) {
    // Every directory between the root and this one: a symlinked `.rt` would point anywhere.
    const parent = path.dirname(dir);
    try {
      if (fs.lstatSync(parent).isSymbolicLink()) {
        out.problems.push({
          file: parent,
          message: "a symbolic link; rt does not read project extensions through one",
        });
        return out;
      }
    } catch {
      return out;
    }
  }
  let names: string[];
  try {
    names = fs
      .readdirSync(dir)
      .filter((n) => extensions.some((e) => n.endsWith(e)) && !n.startsWith("."))
      .sort();
  } catch (e) {
    out.problems.push({
      file: dir,
      message: `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    });
    return out;
  }
  if (names.length > EXTENSION_DIR_MAX_FILES) {
    out.problems.push({
      file: dir,
      message: `${names.length} files; only the first ${EXTENSION_DIR_MAX_FILES} are read`,
    });
    names = names.slice(0, EXTENSION_DIR_MAX_FILES);
  }
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      out.files.push({ file, text: readRegularFile(file, project) });
    } catch (e) {
      out.problems.push({ file, message: (e as Error).message });
    }
  }
  return out;
}

/** A regular file's text (no symbolic link followed when `noFollow`), refusing FIFOs, devices and large files. */
export function readRegularFile(file: string, noFollow: boolean): string {
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NONBLOCK | (noFollow ? O_NOFOLLOW : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new Error("a symbolic link; rt does not follow one in a project's extensions");
    throw new Error(`cannot be read (${code ?? (e as Error).message})`);
  }
  return readOpenRegularFile(
    fd,
    EXTENSION_FILE_MAX_BYTES,
    (why) => new Error(why === "not-regular" ? "not a regular file" : `larger than ${EXTENSION_FILE_MAX_BYTES} bytes`),
  );
}

/** Splits `---\nYAML\n---\nbody` (Claude Code's command and agent files); a file without frontmatter is all body. */
export async function parseFrontmatter(
  text: string,
): Promise<{ meta: Record<string, unknown>; body: string } | { error: string }> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { meta: {}, body: text };
  try {
    const { parse } = await import("yaml");
    const meta = parse(m[1], { schema: "core", maxAliasCount: 100 }) ?? {};
    if (typeof meta !== "object" || Array.isArray(meta)) return { error: "frontmatter must be a mapping of fields" };
    return { meta: meta as Record<string, unknown>, body: text.slice(m[0].length) };
  } catch (e) {
    return { error: `frontmatter is not valid YAML: ${(e as Error).message.split("\n")[0]}` };
  }
}
