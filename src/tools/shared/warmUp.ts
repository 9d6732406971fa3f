// Warming a long-running process's tools: the agent while its first model request is
// in flight, `rt mcp` once it listens. Each offered tool's module is loaded (in the
// bundle a tool's code loads on first use), and when an editing tool is offered, the
// edit path's own lazy parts: the syntax check (tree-sitter's runtime and the grammars
// of the workspace's commonest languages, the Python compiler process), and git diff.
// So no tool call pays a first-use load. The one-shot commands (`rt open`, `rt grep`)
// never call this: their start-up is unchanged.
import fs from "node:fs";
import path from "node:path";
import type { Tool } from "../types.js";
import { createWorkspace, type Workspace } from "../../workspace/workspace.js";
import { scratchDirectory } from "../../workspace/confinedFs.js";
import { detectLanguage } from "../../parsers/detectLanguage.js";
import { WARM_EDIT_SAMPLE_MAX_BYTES, WARM_LANGUAGES, WARM_SAMPLE_ENTRIES } from "../../base/limits.js";

/** A file (its path from the root) of each of the workspace's commonest parsed languages, most common first (a shallow sample of its files). */
export function commonLanguageFiles(root: string, sample = WARM_SAMPLE_ENTRIES, languages = WARM_LANGUAGES): string[] {
  const count = new Map<string, { n: number; file: string }>();
  let seen = 0;
  const visit = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (seen >= sample) return;
      if (e.name.startsWith(".") || e.name === "node_modules") continue;
      seen++;
      if (e.isDirectory()) {
        if (depth < 2) visit(path.join(dir, e.name), depth + 1);
        continue;
      }
      if (!e.isFile()) continue;
      const lang = detectLanguage(e.name);
      if (!lang) continue;
      const c = count.get(lang) ?? { n: 0, file: path.relative(root, path.join(dir, e.name)) };
      c.n++;
      count.set(lang, c);
    }
  };
  visit(root, 0);
  return [...count.values()]
    .sort((a, b) => b.n - a.n)
    .slice(0, languages)
    .map((c) => c.file);
}

/**
 * Loads what the tools' first calls would: every tool's module and, with an editing tool, the
 * syntax check of the workspace's commonest languages and git diff, and with `edit` one real edit
 * in a throwaway workspace (warmEditCall). Never throws (a part that
 * fails to load fails again, with its reason, when a call needs it).
 */
export async function warmTools(workspace: Workspace, tools: readonly Tool[]): Promise<void> {
  try {
    for (const t of tools) {
      // Reading them loads the tool's module (registry.ts's lazy tools).
      void t.description;
      void t.schema;
    }
    if (!tools.some((t) => t.editing)) return;
    const [{ validateEdit }] = await Promise.all([
      import("../../edit/validate.js"),
      import("../../workspace/gitDiff.js"),
    ]);
    const files = commonLanguageFiles(workspace.root);
    for (const file of files) {
      // An empty file gaining a line: parses both with the language's grammar and runs its native check.
      await validateEdit(file, "", "\n", { root: workspace.root });
    }
    if (tools.some((t) => t.name === "edit")) await warmEditCall(workspace, files);
  } catch {
    // Warming is an optimisation: a failure here changes nothing the calls will see.
  }
}

/**
 * One real `edit` call, through the policy as any call, on a copy of a file of each of the
 * workspace's commonest languages in a throwaway workspace (a temporary directory, removed after):
 * what a first edit runs beyond the syntax check (its planning, the file lock, the edit journal,
 * the line IDs, the atomic write, the result's diff) is then loaded and compiled. The user's
 * workspace is not touched.
 */
async function warmEditCall(workspace: Workspace, files: string[]): Promise<void> {
  const scratch = scratchDirectory("rt-warm-");
  try {
    const ws = createWorkspace({ root: scratch.path, env: workspace.env, profile: workspace.profile });
    const { callTool } = await import("../policy.js");
    const samples: Array<{ name: string; text: string }> = [{ name: "warm.txt", text: "warm\n" }];
    for (const [i, file] of files.entries()) {
      // A copy of the workspace's own file (read only): its grammar is exercised as the first real edit will.
      const bytes = workspace.writer.readFile(file, { maxBytes: WARM_EDIT_SAMPLE_MAX_BYTES });
      if (bytes && bytes.length < WARM_EDIT_SAMPLE_MAX_BYTES)
        samples.push({ name: `warm${i}${path.extname(file)}`, text: bytes.toString("utf8") });
    }
    for (const { name, text } of samples) {
      // A blank line after a line that occurs once: an exact replacement that changes no language's syntax.
      const lines = text.split("\n");
      const line = lines.find((l) => l.trim() !== "" && lines.indexOf(l) === lines.lastIndexOf(l));
      if (line === undefined) continue;
      const written = await callTool(ws, "write", { path: name, content: text });
      if (written.success) await callTool(ws, "edit", { path: name, old_string: line, new_string: `${line}\n` });
    }
  } finally {
    scratch.remove();
  }
}
