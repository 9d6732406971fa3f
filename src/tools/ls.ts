import * as z from "zod";
import fs from "node:fs";
import path from "node:path";
import { defineTool, ok, ToolError } from "./types.js";
import { formatSize } from "../workspace/binary.js";
import { ALWAYS_SKIPPED } from "./shared/ripgrep.js";
import { LS_DEFAULT_DEPTH, LS_MAX_DEPTH, LS_MAX_ENTRIES } from "../base/limits.js";

interface Entry {
  name: string;
  type: "directory" | "file" | "symlink" | "other";
  size: number;
  mtime: string;
  mode: string;
  target?: string;
}

function modeString(st: fs.Stats): string {
  const t = st.isDirectory() ? "d" : st.isSymbolicLink() ? "l" : st.isFile() ? "-" : "?";
  const bits = "rwxrwxrwx";
  let s = t;
  for (let i = 0; i < 9; i++) s += st.mode & (1 << (8 - i)) ? bits[i] : "-";
  return s;
}

function entriesOf(dir: string, showHidden: boolean): Entry[] {
  const out: Entry[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (!showHidden && name.startsWith(".")) continue;
    const full = path.join(dir, name);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(full);
    } catch {
      continue;
    }
    const e: Entry = {
      name,
      type: st.isDirectory() ? "directory" : st.isSymbolicLink() ? "symlink" : st.isFile() ? "file" : "other",
      size: st.size,
      mtime: st.mtime.toISOString().slice(0, 16).replace("T", " "),
      mode: modeString(st),
    };
    if (e.type === "symlink") {
      try {
        e.target = fs.readlinkSync(full);
      } catch {
        /* unreadable link */
      }
    }
    out.push(e);
  }
  // Directories first, then by name.
  return out.sort(
    (a, b) =>
      (a.type === "directory" ? 0 : 1) - (b.type === "directory" ? 0 : 1) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

export const lsTool = defineTool({
  name: "ls",
  aliases: ["list_dir"],
  description: `List a directory: mode, size, time, name (directories first, symlink targets), at most ${LS_MAX_ENTRIES} entries. tree: true: a tree (depth ${LS_DEFAULT_DEPTH}; not into .git/, node_modules/).`,
  schema: () =>
    z
      .object({
        path: z.string().optional().describe("Directory (default: the root)"),
        tree: z.boolean().optional().describe("A recursive tree"),
        depth: z
          .number()
          .int()
          .min(1)
          .max(LS_MAX_DEPTH)
          .optional()
          .describe(`Tree depth (default ${LS_DEFAULT_DEPTH})`),
        show_hidden: z.boolean().optional().describe("Include dot files"),
      })
      .strict(),
  cli: {
    synopsis: "rt ls [DIR] [--tree] [--depth N] [-a]",
    summary: "list a directory (default the current one), directories first, or a tree of it",
    positionals: [{ key: "path", name: "DIR", optional: true, path: "here" }],
    options: { tree: { short: "t" }, depth: {}, show_hidden: { flag: "all", short: "a" } },
  },
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace }) {
    const dir = workspace.resolve(args.path ?? ".");
    if (!dir.exists) throw new ToolError(`${dir.rel}: directory not found`);
    if (!fs.statSync(dir.abs).isDirectory())
      throw new ToolError(`${dir.rel}: not a directory; use read or open to see a file`);
    const hidden = args.show_hidden ?? false;
    if (!args.tree) {
      const entries = entriesOf(dir.abs, hidden);
      const shown = entries.slice(0, LS_MAX_ENTRIES);
      const lines = shown.map((e) => {
        const size = e.type === "directory" ? "-" : formatSize(e.size);
        const name =
          e.type === "directory" ? `${e.name}/` : e.target !== undefined ? `${e.name} -> ${e.target}` : e.name;
        return `${e.mode}  ${size.padStart(9)}  ${e.mtime}  ${name}`;
      });
      if (entries.length === 0) lines.push(`(${dir.rel} is empty)`);
      if (entries.length > shown.length) lines.push(`... truncated (${entries.length - shown.length} more)`);
      return ok(lines.join("\n"), {
        path: dir.rel,
        entries: shown,
        count: entries.length,
        truncated: entries.length > shown.length,
      });
    }
    const maxDepth = args.depth ?? LS_DEFAULT_DEPTH;
    const lines: string[] = [dir.rel === "." ? "./" : `${dir.rel}/`];
    let count = 0;
    let more = 0;
    const walk = (abs: string, prefix: string, depth: number) => {
      const entries = entriesOf(abs, hidden);
      entries.forEach((e, i) => {
        if (count >= LS_MAX_ENTRIES) {
          more++;
          return;
        }
        count++;
        const last = i === entries.length - 1;
        const label =
          e.type === "directory"
            ? `${e.name}/`
            : e.type === "symlink"
              ? `${e.name} -> ${e.target ?? "?"}`
              : `${e.name} (${formatSize(e.size)})`;
        lines.push(`${prefix}${last ? "└── " : "├── "}${label}`);
        if (e.type === "directory" && depth < maxDepth && !ALWAYS_SKIPPED.includes(e.name)) {
          walk(path.join(abs, e.name), prefix + (last ? "    " : "│   "), depth + 1);
        }
      });
    };
    walk(dir.abs, "", 1);
    if (more > 0)
      lines.push(
        `... truncated after ${LS_MAX_ENTRIES} entries (at least ${more} more; use a smaller depth or a subdirectory)`,
      );
    return ok(lines.join("\n"), { path: dir.rel, count: count + more, truncated: more > 0 });
  },
});
