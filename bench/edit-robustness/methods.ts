// The editing methods under test. A method takes a case (the file as it is
// now, what the model saw, and the call the model makes) and returns the new
// file text or an error. Each runs rt's real tool in process (the registry,
// the policy, the edit pipeline with its syntax and structure checks) on a
// real file in a scratch directory: what a model calling rt would get.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import type { EditCase, Mistake } from "./cases.ts";

export type MethodResult = { ok: true; text: string; detail?: string } | { ok: false; error: string; detail?: string };
export type Method = (c: EditCase) => Promise<MethodResult>;

const ROOT = fs.mkdtempSync(path.join(os.tmpdir(), "rt-edit-bench-"));
let serial = 0;

/** A scratch directory holding the case's file (its real name, so the language is detected as for the original). */
function scratch(c: EditCase, content: string): { dir: string; rel: string } {
  const dir = path.join(ROOT, String(serial++));
  fs.mkdirSync(dir);
  const rel = path.basename(c.file);
  fs.writeFileSync(path.join(dir, rel), content);
  return { dir, rel };
}

type Result = {
  success: boolean;
  error?: string;
  reason?: string;
  tier?: string;
  relocated?: unknown;
  line_ids?: string[];
};

async function finish(dir: string, rel: string, r: Result, detail: string): Promise<MethodResult> {
  const text = fs.readFileSync(path.join(dir, rel), "utf8");
  fs.rmSync(dir, { recursive: true, force: true });
  if (!r.success) return { ok: false, error: r.error ?? "", detail: r.reason ?? "error" };
  return { ok: true, text, detail };
}

/** `edit` {old_string, new_string, replace_all?}. */
export const editMethod: Method = async (c) => {
  const { dir, rel } = scratch(c, c.text);
  const ws = createWorkspace({ root: dir, env: {}, state: false });
  const r = (await callTool(ws, "edit", {
    path: rel,
    old_string: c.edit.oldString,
    new_string: c.edit.newString,
    ...(c.edit.replaceAll ? { replace_all: true } : {}),
  })) as Result;
  return finish(dir, rel, r, r.tier ?? "");
};

type LineAddressing = "number" | "id" | "n-id";

/**
 * `edit_lines` replacing the target lines (or inserting after a line) with the
 * model's lines, addressed the way the model saw them: the file is read as the
 * model read it (seenText, with line IDs), then moves on to the case's text
 * (another program's edit, for stale-line-numbers), then the call is made by
 * number, by line ID, or both.
 */
function lineMethod(addressing: LineAddressing): Method {
  return async (c) => {
    const { dir, rel } = scratch(c, c.seenText);
    const ws = createWorkspace({ root: dir, env: {}, state: false });
    // The model reads the file (rt records what it showed, and the lines' IDs); output past
    // read's 50 KB cap would come from further reads, so the IDs are taken for the whole file.
    await callTool(ws, "read", { path: rel, ids: true });
    const ids = ws.linesWithIds(ws.resolveTextFile(rel), { viewed: true }).ids;
    if (c.seenText !== c.text) fs.writeFileSync(path.join(dir, rel), c.text);
    const ref = (n: number): number | string =>
      addressing === "number" ? n : addressing === "id" ? ids[n - 1] : `${n}:${ids[n - 1]}`;
    // A last empty line must survive splitting (new_content "a\n" is one line).
    const content =
      c.modelLines.join("\n") + (c.modelLines.length > 0 && c.modelLines[c.modelLines.length - 1] === "" ? "\n" : "");
    const args =
      c.insertAfter !== undefined
        ? { path: rel, command: "insert", insert_line: ref(c.insertAfter), new_content: content }
        : {
            path: rel,
            command: "replace",
            start_line: ref(c.seenStart),
            end_line: ref(c.seenEnd),
            new_content: content,
          };
    const r = (await callTool(ws, "edit_lines", args)) as Result;
    return finish(dir, rel, r, r.relocated ? "relocated" : "in place");
  };
}

/** name → method, in report order. */
export const METHODS: Record<string, Method> = {
  edit: editMethod,
  "edit_lines:number": lineMethod("number"),
  "edit_lines:id": lineMethod("id"),
  "edit_lines:n-id": lineMethod("n-id"),
};

/**
 * Mistakes in quoting the old text (curly quotes, doubled escapes, trailing or
 * irregular whitespace in the copy, a duplicated or hallucinated or
 * misremembered old_string, a placeholder standing for old lines) only exist
 * for methods that quote old text. A line-addressed edit names its lines and
 * writes the content it is given: that content is the instruction, so those
 * classes do not apply to it.
 */
const LINE_METHOD_CLASSES: ReadonlySet<Mistake> = new Set<Mistake>([
  "none",
  "indent-shift",
  "tabs-vs-spaces",
  "crlf-file",
  "crlf-model",
  "stale-line-numbers",
  "other-valid-base",
  "wrap-in-block",
  "append-at-level",
]);

/** Whether a case is meaningful for a method at all (others are left out of its report). */
export function appliesTo(method: string, c: EditCase): boolean {
  return !method.startsWith("edit_lines") || LINE_METHOD_CLASSES.has(c.mistake);
}

/**
 * Whether a method can recover the intent of a case at all. By default the
 * case decides; line-number methods cannot follow lines that moved after the
 * model read the file (stale-line-numbers).
 */
export function recoverableBy(method: string, c: EditCase): boolean {
  if (!c.recoverable) return false;
  if (method === "edit_lines:number" && c.mistake === "stale-line-numbers") return false;
  return true;
}

/** Removes the scratch directories. */
export function cleanup(): void {
  fs.rmSync(ROOT, { recursive: true, force: true });
}
