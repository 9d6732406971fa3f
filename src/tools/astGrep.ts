// ast_grep: structural search with ast-grep patterns ($VAR, $$$ARGS), and
// structural rewrite applied through the workspace like any edit (syntax
// validation, journal for undo_edit, atomic write per file). A rewrite over
// several files is all-or-nothing: every file is planned and validated before
// any is written, and if a write still fails midway the files already written
// are put back as they were.
import fs from "node:fs";
import * as z from "zod";
import { defineTool, ok, ToolError, type ToolContext } from "./types.js";
import type { Workspace } from "../workspace/workspace.js";
import { applyEdit, type Plan, type Snapshot } from "../workspace/applyEdit.js";
import { withLines, normalizedText } from "../edit/fileModel.js";
import { Journal } from "../workspace/journal.js";
import { withFileLock } from "../workspace/fileLock.js";
import { hashBytes } from "../workspace/fingerprint.js";
import { detectLanguage } from "../parsers/detectLanguage.js";
import type { LanguageId } from "../parsers/treeSitter.js";
import type { StructuralMatch } from "../parsers/astGrep.js";
import { baseArgs, comparePaths, lineSplitter, runRg } from "./shared/ripgrep.js";
import {
  AST_GREP_DEFAULT_CAP,
  AST_GREP_MAX_FILES,
  AST_GREP_VAR_MAX_CHARS,
  EDIT_MAX_BYTES,
  GREP_TIMEOUT_MS,
} from "../base/limits.js";

type AstGrep = typeof import("../parsers/astGrep.js");

/** The files to search: the path itself, or the files under it (.gitignore honored), with their languages. */
async function filesUnder(
  workspace: Workspace,
  path: string,
  only: LanguageId | undefined,
  signal?: AbortSignal,
): Promise<{ files: Array<{ rel: string; lang: LanguageId }>; capped: boolean }> {
  const r = workspace.resolve(path);
  if (!r.exists) throw new ToolError(`${r.rel}: not found`);
  if (fs.statSync(r.abs).isFile()) {
    const lang = only ?? detectLanguage(r.rel, fs.readFileSync(r.abs).subarray(0, 256).toString("utf8"));
    if (!lang) throw new ToolError(`${r.rel}: not a language rt knows by its name; pass lang`);
    return { files: [{ rel: r.rel, lang }], capped: false };
  }
  const names: string[] = [];
  const lines = lineSplitter((line) => {
    if (line) names.push(line);
  });
  const args = [...baseArgs(), "--files"];
  if (r.rel !== ".") args.push("--", r.rel);
  const run = await runRg(args, workspace.root, GREP_TIMEOUT_MS, lines.onData, signal);
  lines.end();
  if (run.exitCode !== 0 && run.exitCode !== 1 && !run.timedOut)
    throw new ToolError(
      `ast_grep: listing files failed: ${run.stderr.trim() || `ripgrep exited with ${run.exitCode}`}`,
    );
  names.sort(comparePaths);
  const files: Array<{ rel: string; lang: LanguageId }> = [];
  for (const rel of names) {
    const lang = detectLanguage(rel);
    if (lang && (only === undefined || lang === only)) files.push({ rel, lang });
  }
  return { files: files.slice(0, AST_GREP_MAX_FILES), capped: files.length > AST_GREP_MAX_FILES };
}

function readSmall(workspace: Workspace, rel: string): string | undefined {
  try {
    const st = fs.statSync(workspace.resolve(rel).abs);
    if (st.size > EDIT_MAX_BYTES) return undefined;
    return workspace.writer.readFile(rel)?.toString("utf8");
  } catch {
    return undefined; // gone, or a symlink the confined reader refuses: not searched
  }
}

function shortVar(text: string): string {
  const one = text.replace(/\r?\n\s*/g, "⏎");
  return one.length > AST_GREP_VAR_MAX_CHARS ? `${one.slice(0, AST_GREP_VAR_MAX_CHARS)}…` : one;
}

/** The languages the pattern is searched in: the one named, else those of the files where the pattern parses. */
function languagesFor(
  sg: AstGrep,
  files: Array<{ lang: LanguageId }>,
  pattern: string,
): { use: Set<LanguageId>; refused: string[] } {
  const use = new Set<LanguageId>();
  const refused: string[] = [];
  for (const lang of new Set(files.map((f) => f.lang))) {
    try {
      sg.findMatches("", lang, pattern);
      use.add(lang);
    } catch (e) {
      refused.push(`${lang}: ${(e as Error).message}`);
    }
  }
  return { use, refused };
}

interface FileRewrite {
  rel: string;
  lang: LanguageId;
  count: number;
}

export const astGrepTool = defineTool({
  name: "ast_grep",
  aliases: ["ast_search"],
  brief: `Structural code search (and rewrite) with ast-grep patterns such as foo($A, $$$REST).`,
  description: `Structural search with ast-grep patterns ($X: one node, $$$X: any number): path:line: text and each capture. rewrite replaces every match (syntax-checked, undoable, all files or none); dry_run shows the diff.`,
  schema: () =>
    z
      .object({
        pattern: z.string().min(1).describe("e.g. console.log($$$A)"),
        lang: z.string().optional().describe("Default: from file names"),
        path: z.string().optional().describe("File or directory"),
        rewrite: z.string().optional().describe("Replacement, may use $VARs"),
        dry_run: z.boolean().optional().describe("Show the diff only"),
        limit: z.number().int().min(1).optional().describe(`Default ${AST_GREP_DEFAULT_CAP}`),
      })
      .strict(),
  cli: {
    synopsis: "rt ast-grep PATTERN [PATH] [--lang L] [--rewrite R [--apply]] [--limit N]",
    summary:
      "structural search with an ast-grep pattern ($X one node, $$$X many): path:line: text; with --rewrite, the diff (--apply writes it)",
    positionals: [
      { key: "pattern", name: "PATTERN" },
      { key: "path", name: "PATH", optional: true, path: "here" },
    ],
    options: { lang: {}, rewrite: {}, limit: {} },
    flags: { apply: { help: "write the rewrite (default: show the diff only)" } },
    // On the command line a rewrite is shown unless --apply; the tool's dry_run says the same.
    refine(args, flags) {
      if (flags.apply && args.rewrite === undefined)
        return "--apply needs --rewrite: there is nothing to write without one";
      if (args.rewrite !== undefined) args.dry_run = !flags.apply;
      return undefined;
    },
  },
  readOnly: false,
  // Not an `editing` tool: it searches too, and is offered in safe-read-only, where the handler
  // refuses an applied rewrite (dry runs and searches work). RT_ENABLE_SWE=0 turns it off as a SWE tool.
  swe: true,
  enforcesReadOnly: true,
  async handler(args, ctx) {
    const { workspace, signal } = ctx;
    let only: LanguageId | undefined;
    const sg = await import("../parsers/astGrep.js");
    if (args.lang !== undefined) {
      only = sg.languageNamed(args.lang);
      if (!only) throw new ToolError(`unknown lang "${args.lang}": use one of ${sg.AST_GREP_LANGUAGES.join(", ")}`);
    }
    sg.checkPatternSize(args.pattern);
    if (args.rewrite !== undefined) {
      const missing = sg.undefinedTemplateVariables(args.pattern, args.rewrite);
      if (missing.length > 0) {
        throw new ToolError(
          `rewrite uses ${missing.map((n) => `$${n}`).join(", ")}, which the pattern ${JSON.stringify(args.pattern)} does not define; nothing was changed`,
        );
      }
      if (workspace.profile === "safe-read-only" && args.dry_run !== true) {
        throw new ToolError(
          "ast_grep with rewrite changes files, and the profile is safe-read-only: nothing may be modified. Pass dry_run: true (--dry-run, the CLI's default) to see the diff, or search without rewrite.",
        );
      }
    }
    const { files, capped } = await filesUnder(workspace, args.path ?? ".", only, signal);
    if (files.length === 0)
      throw new ToolError(`no ${only ? `${only} ` : ""}source files under ${workspace.resolve(args.path ?? ".").rel}`);
    const { use, refused } = languagesFor(sg, files, args.pattern);
    if (use.size === 0) throw new ToolError(`the pattern is not valid ast-grep syntax for ${refused.join("; ")}`);
    const searched = files.filter((f) => use.has(f.lang));
    if (args.rewrite === undefined)
      return search(workspace, sg, searched, args.pattern, args.limit ?? AST_GREP_DEFAULT_CAP, capped, ctx);
    return rewrite(workspace, sg, searched, args.pattern, args.rewrite, args.dry_run === true, ctx);
  },
});

function search(
  workspace: Workspace,
  sg: AstGrep,
  files: Array<{ rel: string; lang: LanguageId }>,
  pattern: string,
  limit: number,
  capped: boolean,
  { signal }: ToolContext,
) {
  const out: string[] = [];
  const matches: Array<{
    path: string;
    line: number;
    column: number;
    end_line: number;
    text: string;
    vars: Record<string, string>;
  }> = [];
  let total = 0;
  for (const f of files) {
    if (signal?.aborted) break;
    const text = readSmall(workspace, f.rel);
    if (text === undefined) continue;
    const found: StructuralMatch[] = sg.findMatches(text, f.lang, pattern);
    total += found.length;
    if (found.length === 0 || matches.length >= limit) continue;
    const lines = text.split("\n");
    for (const m of found) {
      if (matches.length >= limit) break;
      matches.push({
        path: f.rel,
        line: m.start.line + 1,
        column: m.start.column + 1,
        end_line: m.end.line + 1,
        text: m.text,
        vars: m.vars,
      });
      out.push(`${f.rel}:${m.start.line + 1}: ${(lines[m.start.line] ?? "").replace(/\r$/, "").trimEnd()}`);
      const vars = Object.entries(m.vars).map(([k, v]) => `$${k}=${shortVar(v)}`);
      if (vars.length > 0) out.push(`    ${vars.join("  ")}`);
    }
  }
  if (total === 0) {
    const langs = [...new Set(files.map((f) => f.lang))];
    const broken = langs.filter((l) => sg.patternHasSyntaxError(l, pattern));
    out.push(`no matches for ${JSON.stringify(pattern)} in ${files.length} file${files.length === 1 ? "" : "s"}`);
    if (broken.length > 0)
      out.push(
        `note: the pattern is not complete ${broken.join("/")} code (it has a syntax error), so it can match nothing; write it as the code would be written`,
      );
  }
  if (total > matches.length) out.push(`... truncated (${total - matches.length} more matches)`);
  if (capped) out.push(`... only the first ${AST_GREP_MAX_FILES} files were searched; narrow with path`);
  return ok(out.join("\n"), { matches, count: total, truncated: total > matches.length || capped });
}

/** The plan of one file's rewrite, from the file as the edit pipeline read it. */
function planner(
  sg: AstGrep,
  lang: LanguageId,
  pattern: string,
  template: string,
  seen?: (snap: Snapshot, count: number) => void,
) {
  return (snap: Snapshot): Plan => {
    const before = normalizedText(snap.model);
    const r = sg.rewriteText(before, lang, pattern, template);
    seen?.(snap, r.rewritten.length);
    const finalNewline = r.text.endsWith("\n");
    const lines = r.text === "" ? [] : (finalNewline ? r.text.slice(0, -1) : r.text).split("\n");
    const model = withLines(snap.model, lines, finalNewline);
    const first = r.regions[0] ?? { start: 1, end: 1 };
    const last = r.regions[r.regions.length - 1] ?? first;
    return { model, start: first.start, end: last.end, regions: r.regions, metadata: { matches: r.rewritten.length } };
  };
}

async function rewrite(
  workspace: Workspace,
  sg: AstGrep,
  files: Array<{ rel: string; lang: LanguageId }>,
  pattern: string,
  template: string,
  dryRun: boolean,
  { signal, onProgress }: ToolContext,
) {
  // 1. Which files change.
  const changing: FileRewrite[] = [];
  for (const f of files) {
    if (signal?.aborted) throw new ToolError("ast_grep cancelled; nothing was written");
    const text = readSmall(workspace, f.rel);
    if (text === undefined) continue;
    const normalized = text.replace(/\r\n/g, "\n");
    const r = sg.rewriteText(normalized, f.lang, pattern, template);
    if (r.rewritten.length > 0 && r.text !== normalized)
      changing.push({ rel: f.rel, lang: f.lang, count: r.rewritten.length });
  }
  if (changing.length === 0)
    return ok(
      `no matches for ${JSON.stringify(pattern)} to rewrite in ${files.length} file${files.length === 1 ? "" : "s"}; nothing changed`,
      { files: [], count: 0, changed: false },
    );
  // 2. Every file planned and validated (syntax) before any is written.
  const diffs: string[] = [];
  const problems: string[] = [];
  for (const f of changing) {
    try {
      const r = await applyEdit(workspace, f.rel, planner(sg, f.lang, pattern, template), {
        tool: "ast_grep",
        dryRun: true,
      });
      diffs.push(String(r.metadata.diff ?? ""));
    } catch (e) {
      if (!(e instanceof ToolError)) throw e;
      // The edit pipeline's hint about force does not apply: ast_grep has no force.
      problems.push(`${f.rel}: ${e.message.replace(/\nFix the new content, or pass force[^\n]*$/, "")}`);
    }
  }
  const matchCount = changing.reduce((n, f) => n + f.count, 0);
  const summary = `${matchCount} match${matchCount === 1 ? "" : "es"} in ${changing.length} file${changing.length === 1 ? "" : "s"}`;
  if (problems.length > 0) {
    throw new ToolError(
      `rewrite refused: ${problems.length} of ${changing.length} files would be broken by it; no file was changed.\n${problems.join("\n")}`,
      { validation_failed: true },
    );
  }
  const diff = diffs.join("");
  const meta = { files: changing.map((f) => ({ path: f.rel, matches: f.count })), count: matchCount, diff };
  if (dryRun)
    return ok(`Dry run: ${summary} would be rewritten; nothing written. The patch:\n${diff}`, {
      ...meta,
      dry_run: true,
      changed: false,
    });
  // 3. Written one file at a time; a failure puts back the ones written before it.
  const written: Array<{ rel: string; before: Buffer; mode?: number; afterHash: string }> = [];
  for (const [i, f] of changing.entries()) {
    onProgress?.({ kind: "status", message: `writing ${f.rel} (${i + 1}/${changing.length})`, done: i });
    try {
      let snapBytes: Buffer | null = null;
      let snapMode: number | undefined;
      const r = await applyEdit(
        workspace,
        f.rel,
        planner(sg, f.lang, pattern, template, (snap) => {
          snapBytes = snap.bytes;
          snapMode = snap.mode;
        }),
        { tool: "ast_grep" },
      );
      if (r.metadata.changed === true && snapBytes !== null) {
        const now = workspace.writer.readFile(f.rel);
        written.push({ rel: f.rel, before: snapBytes, mode: snapMode, afterHash: now ? hashBytes(now) : "" });
      }
    } catch (e) {
      const restored = await restore(workspace, written);
      const why = e instanceof Error ? e.message : String(e);
      throw new ToolError(
        `rewrite stopped: writing ${f.rel} failed (${why}). ${restored.ok.length} file${restored.ok.length === 1 ? "" : "s"} written before it ${restored.ok.length === 1 ? "was" : "were"} restored${restored.failed.length ? `; could not restore ${restored.failed.join(", ")} (changed meanwhile): use undo_edit or git` : ""}; the rewrite is not applied.`,
        { restored: restored.ok },
      );
    }
  }
  onProgress?.({ kind: "status", message: `rewrote ${changing.length} files`, done: changing.length });
  return ok(`✓ Rewrote ${summary} (undo_edit reverts each file):\n${diff}`, { ...meta, changed: true });
}

/** Puts back files a failed rewrite had written, and drops their journal entries (undo has nothing to revert then). */
async function restore(
  workspace: Workspace,
  written: Array<{ rel: string; before: Buffer; mode?: number; afterHash: string }>,
): Promise<{ ok: string[]; failed: string[] }> {
  const journal = new Journal(workspace.state);
  const done: string[] = [];
  const failed: string[] = [];
  for (const w of written.reverse()) {
    const abs = workspace.resolve(w.rel).abs;
    await withFileLock(workspace.state, w.rel, abs, () => {
      const now = workspace.writer.readFile(w.rel);
      if (!now || hashBytes(now) !== w.afterHash) {
        failed.push(w.rel);
        return;
      }
      workspace.writer.writeAtomic(w.rel, w.before, w.mode !== undefined ? { mode: w.mode } : {});
      if (journal.enabled) journal.pop(w.rel);
      workspace.lineIds.clear(w.rel);
      done.push(w.rel);
    });
  }
  return { ok: done.reverse(), failed };
}
