// symbols: a file's outline (classes, functions, methods... with line ranges
// and line IDs) from tree-sitter, or, with `grep`, the definitions of a name
// across the workspace: ripgrep finds the files whose text holds the name,
// tree-sitter says which of its occurrences define something.
import fs from "node:fs";
import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import type { Workspace } from "../workspace/workspace.js";
import { detectLanguage } from "../parsers/detectLanguage.js";
import type { OutlineSymbol } from "../parsers/outline.js";
import { baseArgs, comparePaths, lineSplitter, runRg } from "./shared/ripgrep.js";
import { formatSize } from "../workspace/binary.js";
import {
  GREP_TIMEOUT_MS,
  LINE_ID_MAX_BYTES,
  SYMBOLS_FILE_CAP,
  SYMBOLS_GREP_CAP,
  SYMBOLS_GREP_MAX_FILES,
  SYMBOLS_MAX_FILE_BYTES,
  SYMBOLS_PARSE_TIMEOUT_MS,
} from "../base/limits.js";

/** The outline of one workspace file, or why there is none. */
async function outlineOf(
  workspace: Workspace,
  rel: string,
  size: number,
): Promise<{ symbols: OutlineSymbol[]; text: string } | { reason: string }> {
  if (size > SYMBOLS_MAX_FILE_BYTES)
    return { reason: `${formatSize(size)} is larger than the ${formatSize(SYMBOLS_MAX_FILE_BYTES)} rt outlines` };
  const bytes = workspace.writer.readFile(rel);
  if (bytes === undefined) return { reason: "file not found" };
  const text = bytes.toString("utf8");
  const lang = detectLanguage(rel, text);
  if (!lang) return { reason: "not a language rt parses (by its extension or shebang)" };
  const { outline } = await import("../parsers/outline.js");
  const symbols = await outline(text, lang, SYMBOLS_PARSE_TIMEOUT_MS);
  if (!symbols) return { reason: `parsing took longer than ${SYMBOLS_PARSE_TIMEOUT_MS / 1000}s` };
  return { symbols, text };
}

function qualified(s: OutlineSymbol): string {
  return [...s.container, s.name].join(".");
}

async function fileOutline(workspace: Workspace, path: string) {
  const file = workspace.resolveTextFile(path);
  const got = await outlineOf(workspace, file.rel, file.stat.size);
  if ("reason" in got) throw new ToolError(`${file.rel}: no outline: ${got.reason}`);
  const ids = file.stat.size <= LINE_ID_MAX_BYTES ? workspace.linesWithIds(file).ids : undefined;
  const total = got.text === "" ? 0 : got.text.split("\n").length - (got.text.endsWith("\n") ? 1 : 0);
  const shown = got.symbols.slice(0, SYMBOLS_FILE_CAP);
  const width = String(total).length * 2 + 1;
  const lines = shown.map((s) => {
    const id = ids?.[s.startLine - 1];
    const range = `${s.startLine}-${s.endLine}`.padEnd(width);
    return `${range} ${id ? `[LID:${id}] ` : ""}${"  ".repeat(s.depth)}${s.kind} ${s.name}: ${s.signature}`;
  });
  const head = `${file.rel}: ${got.symbols.length === 0 ? "no definitions found" : `${got.symbols.length} definition${got.symbols.length === 1 ? "" : "s"}`} (${total} lines)`;
  if (got.symbols.length > shown.length) lines.push(`... truncated (${got.symbols.length - shown.length} more)`);
  const symbols = shown.map((s) => ({
    kind: s.kind,
    name: s.name,
    container: s.container.join(".") || undefined,
    start_line: s.startLine,
    end_line: s.endLine,
    ...(ids ? { line_id: ids[s.startLine - 1] } : {}),
    signature: s.signature,
  }));
  return ok([head, ...lines].join("\n"), { path: file.rel, symbols, total_lines: total });
}

async function grepDefinitions(workspace: Workspace, name: string, under: string, signal?: AbortSignal) {
  const dir = workspace.resolve(under);
  if (!dir.exists) throw new ToolError(`${dir.rel}: not found`);
  const files: string[] = [];
  const lines = lineSplitter((line) => {
    if (line) files.push(line);
  });
  const needle = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : name;
  const rgArgs = [
    ...baseArgs(),
    "--files-with-matches",
    "--ignore-case",
    "--fixed-strings",
    "--max-filesize",
    String(SYMBOLS_MAX_FILE_BYTES),
    "--",
    needle,
  ];
  if (dir.rel !== ".") rgArgs.push(dir.rel);
  const run = await runRg(rgArgs, workspace.root, GREP_TIMEOUT_MS, lines.onData, signal);
  lines.end();
  if (run.exitCode !== 0 && run.exitCode !== 1 && !run.timedOut)
    throw new ToolError(`symbols: ripgrep failed: ${run.stderr.trim() || `exit ${run.exitCode}`}`);
  files.sort(comparePaths);
  const candidates = files.filter((f) => detectLanguage(f) !== null).slice(0, SYMBOLS_GREP_MAX_FILES);
  const lower = name.toLowerCase();
  const found: Array<{ path: string; s: OutlineSymbol; exact: boolean }> = [];
  for (const rel of candidates) {
    if (signal?.aborted) break;
    let got;
    try {
      got = await outlineOf(workspace, rel, 0);
    } catch {
      continue; // a file that vanished or is a symlink rt does not follow: not a definition site
    }
    if ("reason" in got) continue;
    for (const s of got.symbols) {
      if (s.kind === "key" || s.kind === "element" || s.kind === "rule") continue;
      const full = qualified(s);
      const exact = s.name === name || full === name || full.endsWith(`.${name}`);
      if (exact || s.name.toLowerCase().includes(lower) || full.toLowerCase().endsWith(lower))
        found.push({ path: rel, s, exact });
    }
  }
  // Exact names first, then in path order.
  found.sort((a, b) => Number(b.exact) - Number(a.exact));
  const shown = found.slice(0, SYMBOLS_GREP_CAP);
  const out = shown.map(
    ({ path, s }) => `${path}:${s.startLine}-${s.endLine}: ${s.kind} ${qualified(s)}: ${s.signature}`,
  );
  if (found.length === 0) out.push(`no definition named like "${name}"${dir.rel !== "." ? ` under ${dir.rel}` : ""}`);
  if (found.length > shown.length) out.push(`... truncated (${found.length - shown.length} more)`);
  const skipped = files.filter((f) => detectLanguage(f) !== null).length - candidates.length;
  if (skipped > 0) out.push(`... ${skipped} more files hold the name and were not parsed (narrow with path)`);
  if (run.timedOut) out.push(`... search timed out after ${GREP_TIMEOUT_MS / 1000}s; the list is incomplete`);
  const definitions = shown.map(({ path, s, exact }) => ({
    path,
    kind: s.kind,
    name: s.name,
    container: s.container.join(".") || undefined,
    start_line: s.startLine,
    end_line: s.endLine,
    exact,
    signature: s.signature,
  }));
  return ok(out.join("\n"), { definitions, count: found.length, truncated: found.length > shown.length });
}

export const symbolsTool = defineTool({
  name: "symbols",
  aliases: ["outline"],
  brief: `Outline a file (classes, functions, methods with line ranges), or find where a name is defined.`,
  description: `Outline a source file: classes, functions, methods, types with line ranges and IDs ("12-40 [LID:k3f9] class Foo"). Use before opening a large file. grep: definitions named so, under path.`,
  schema: () =>
    z
      .object({
        path: z.string().optional().describe("File to outline; with grep, where to look"),
        grep: z.string().min(1).optional().describe("Name to find definitions of (Class.method works)"),
      })
      .strict(),
  cli: {
    synopsis: "rt symbols PATH | rt symbols --grep NAME [DIR]",
    summary:
      "outline a file (classes, functions, methods with line ranges and line IDs), or find where NAME is defined",
    positionals: [{ key: "path", name: "PATH", path: true }],
    forms: [{ when: { grep: true }, positionals: [{ key: "path", name: "DIR", optional: true, path: "here" }] }],
    options: { grep: {} },
  },
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    if (args.grep !== undefined) return grepDefinitions(workspace, args.grep, args.path ?? ".", signal);
    if (args.path === undefined)
      throw new ToolError("give path (a file to outline) or grep (a name to find across the workspace)");
    const r = workspace.resolve(args.path);
    if (r.exists && fs.statSync(r.abs).isDirectory()) {
      throw new ToolError(
        `${r.rel}: is a directory; symbols outlines one file. To find a definition under it, pass grep: NAME`,
      );
    }
    return fileOutline(workspace, args.path);
  },
});
