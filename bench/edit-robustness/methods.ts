// The editing methods under test. A method takes a case (the file as it is
// now, what the model saw, and the call the model makes) and returns the new
// file text or an error. Add the line-based methods here: `edit_lines` by
// number (seenStart/seenEnd + modelLines), by ID and by `N:ID` (IDs assigned
// on seenText, then the file moves on to text), and register them in METHODS.
import { applyReplacements, planEdit } from "../../src/edit/match.ts";
import type { EditCase } from "./cases.ts";

export type MethodResult = { ok: true; text: string; detail?: string } | { ok: false; error: string; detail?: string };
export type Method = (c: EditCase) => MethodResult;

/** `edit` {old_string, new_string, replace_all?}: the layered matcher of src/edit/match.ts. */
export const editMethod: Method = (c) => {
  const r = planEdit(c.text, c.edit.oldString, c.edit.newString, { replaceAll: c.edit.replaceAll });
  if (!r.ok) return { ok: false, error: r.message, detail: r.reason };
  return { ok: true, text: applyReplacements(c.text, r.replacements), detail: r.tier };
};

/** name → method, in report order. */
export const METHODS: Record<string, Method> = {
  edit: editMethod,
};

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
