// The editing methods under test. A method takes a case (the file as it is
// now, what the model saw, and the call the model makes) and returns the new
// file text or an error. Add the line-based methods here: `edit_lines` by
// number (seenStart/seenEnd + modelLines), by ID and by `N:ID` (IDs assigned
// on seenText, then the file moves on to text), and register them in METHODS.
import { applyReplacements, planEdit } from "../../src/edit/match.ts";
import { parseFile, serialize, withLines } from "../../src/edit/fileModel.ts";
import { resolveRef, staleNumber, type LineRef } from "../../src/edit/lineRefs.ts";
import { applyLineChanges } from "../../src/edit/lineEdits.ts";
import { hashLine, reconcileIds } from "../../src/workspace/lineIds.ts";
import { splitLines } from "../../src/workspace/workspace.ts";
import type { EditCase, Mistake } from "./cases.ts";

export type MethodResult = { ok: true; text: string; detail?: string } | { ok: false; error: string; detail?: string };
export type Method = (c: EditCase) => MethodResult;

/** `edit` {old_string, new_string, replace_all?}: the layered matcher of src/edit/match.ts. */
export const editMethod: Method = (c) => {
  const r = planEdit(c.text, c.edit.oldString, c.edit.newString, { replaceAll: c.edit.replaceAll });
  if (!r.ok) return { ok: false, error: r.message, detail: r.reason };
  return { ok: true, text: applyReplacements(c.text, r.replacements), detail: r.tier };
};

type LineAddressing = "number" | "id" | "n-id";

/**
 * `edit_lines` replacing the target lines with the model's lines, addressed the
 * way the model saw them: by number, by line ID, or both (N:ID). It runs rt's
 * real engine: IDs are assigned on the text the model read and reconciled with
 * the text as it is now (the same diff alignment rt does after any change),
 * references resolve as in edit_lines (plain numbers are checked against what
 * the model was shown, as rt does after read/open), the content is re-indented
 * to its place, and the file model keeps line endings.
 */
function lineMethod(addressing: LineAddressing): Method {
  return (c) => {
    const model = parseFile(Buffer.from(c.text, "utf8"));
    const seen = splitLines(c.seenText);
    const seenIds = reconcileIds([], [], seen.map(hashLine), 0);
    const now = reconcileIds(seen.map(hashLine), seenIds.ids, model.lines.map(hashLine), seenIds.next);
    const ref = (n: number): LineRef => (addressing === "number" ? n : addressing === "id" ? seenIds.ids[n - 1] : `${n}:${seenIds.ids[n - 1]}`);
    const from = resolveRef(ref(c.seenStart), model.lines, now.ids);
    if ("error" in from) return { ok: false, error: from.error, detail: "ref" };
    const to = resolveRef(ref(c.seenEnd), model.lines, now.ids);
    if ("error" in to) return { ok: false, error: to.error, detail: "ref" };
    if (addressing === "number") {
      // rt showed the model the whole file it read (seenText): numbers must still name those lines.
      const stale = staleNumber(from.line, seenIds.ids, now.ids, c.file) ?? staleNumber(to.line, seenIds.ids, now.ids, c.file);
      if (stale) return { ok: false, error: stale, detail: "stale" };
    }
    const applied = applyLineChanges(model.lines, [{ start: from.line, end: to.line, content: c.modelLines }]);
    if ("error" in applied) return { ok: false, error: applied.error, detail: "apply" };
    const relocated = from.relocatedFrom !== undefined ? "relocated" : "in place";
    return { ok: true, text: serialize(withLines(model, applied.lines)).toString("utf8"), detail: relocated };
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
 * misremembered old_string) only exist for methods that quote old text. A
 * line-addressed edit names its lines and writes the content it is given: that
 * content is the instruction, so those classes do not apply to it.
 */
const LINE_METHOD_CLASSES: ReadonlySet<Mistake> = new Set<Mistake>(["none", "indent-shift", "tabs-vs-spaces", "crlf-file", "crlf-model", "stale-line-numbers"]);

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
