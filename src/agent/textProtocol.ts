// Text mode (the text protocol): the model writes fenced ```bash blocks of
// `rt` and Unix commands, and rt runs each one in the workspace and feeds the
// output back. Fenced ```json blocks holding actions
// ({"action": "edit_file", "path": ..., "old": ..., "new": ...}, or any tool
// name with its arguments) are accepted too. Pure parsing and formatting here;
// running happens in the loop, through the policy.
import { findTool } from "../tools/registry.js";

export type TextAction =
  | { kind: "bash"; command: string }
  | { kind: "tool"; name: string; args: Record<string, unknown> }
  /** A block that looked like an action but cannot run; the model is told why. */
  | { kind: "invalid"; error: string; raw: string };

const SHELL_LANGS = new Set(["bash", "sh", "shell", "zsh"]);
const JSON_LANGS = new Set(["json", "jsonc"]);

interface Fence {
  lang: string;
  body: string;
}

/** Fenced code blocks (``` or ~~~, three or more), in order. An unclosed fence runs to the end. */
export function fencedBlocks(text: string): Fence[] {
  const out: Fence[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s{0,3}(`{3,}|~{3,})\s*([\w+.-]*)/.exec(lines[i]);
    if (!open) continue;
    const marker = open[1];
    const lang = open[2].toLowerCase();
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^\s{0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === marker[0] && close[1].length >= marker.length) break;
      body.push(lines[j]);
    }
    out.push({ lang, body: body.join("\n") });
    i = j;
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Turns one JSON value from a ```json block into actions ({action}, {tool, args} or {name, arguments} objects, or an array of them). */
function jsonActions(value: unknown, raw: string): TextAction[] {
  if (Array.isArray(value)) return value.flatMap((v) => jsonActions(v, raw));
  if (!isObject(value)) return [];
  let name: unknown;
  let args: unknown;
  if (typeof value.action === "string") {
    const { action, ...rest } = value;
    name = action;
    args = rest;
  } else if (typeof value.tool === "string") {
    name = value.tool;
    args = value.args ?? value.arguments ?? {};
  } else if (
    typeof value.name === "string" &&
    (isObject(value.arguments) || isObject(value.parameters) || typeof value.arguments === "string")
  ) {
    name = value.name;
    args = value.arguments ?? value.parameters;
  } else {
    return []; // plain JSON data, not an action
  }
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return [{ kind: "invalid", error: `the arguments of ${String(name)} are not valid JSON`, raw }];
    }
  }
  if (!isObject(args))
    return [{ kind: "invalid", error: `the arguments of ${String(name)} must be a JSON object`, raw }];
  if (!findTool(String(name))) {
    return [
      {
        kind: "invalid",
        error: `unknown action "${String(name)}"; use a tool name (rt tools lists them) or a bash block`,
        raw,
      },
    ];
  }
  return [{ kind: "tool", name: String(name), args }];
}

/** The actions of a text-mode answer, in order: every shell block, and every JSON block holding actions. */
export function parseActions(text: string): TextAction[] {
  const out: TextAction[] = [];
  for (const block of fencedBlocks(text)) {
    if (SHELL_LANGS.has(block.lang)) {
      if (block.body.trim() !== "") out.push({ kind: "bash", command: block.body });
    } else if (JSON_LANGS.has(block.lang)) {
      let value: unknown;
      try {
        value = JSON.parse(block.body);
      } catch (e) {
        if (/"action"\s*:/.test(block.body))
          out.push({
            kind: "invalid",
            error: `the JSON action is not valid JSON (${(e as Error).message})`,
            raw: block.body,
          });
        continue;
      }
      out.push(...jsonActions(value, block.body));
    }
  }
  return out;
}

/**
 * Tool calls a model wrote as plain text while native tools were offered:
 * `<tool_call>{"name": ..., "arguments": ...}</tool_call>` (Hermes/Qwen style),
 * fenced JSON of that shape, or a whole answer that is such an object. Only
 * names of real tools count, so JSON that merely mentions "name" does not.
 */
export function textualToolCalls(text: string): Array<{ name: string; args: Record<string, unknown> }> {
  const candidates: string[] = [];
  for (const m of text.matchAll(/<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g)) candidates.push(m[1]);
  for (const b of fencedBlocks(text)) if (JSON_LANGS.has(b.lang) || b.lang === "") candidates.push(b.body);
  const whole = text.trim();
  if (whole.startsWith("{") && whole.endsWith("}")) candidates.push(whole);
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  for (const c of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(c.trim());
    } catch {
      continue;
    }
    for (const v of Array.isArray(value) ? value : [value]) {
      if (!isObject(v) || typeof v.name !== "string" || !findTool(v.name)) continue;
      let args = v.arguments ?? v.parameters ?? {};
      if (typeof args === "string") {
        try {
          args = JSON.parse(args);
        } catch {
          continue;
        }
      }
      if (isObject(args)) calls.push({ name: v.name, args });
    }
  }
  return calls;
}

/** The line shown for an action in the feedback message: `$ command` or `▶ tool {args}`. */
export function actionHeader(a: TextAction): string {
  if (a.kind === "bash")
    return a.command
      .split("\n")
      .map((l, i) => (i === 0 ? `$ ${l}` : `> ${l}`))
      .join("\n");
  if (a.kind === "tool") return `▶ ${a.name} ${JSON.stringify(a.args)}`;
  return `▶ (invalid action)`;
}

/** The user message that hands the outputs of one answer's actions back to the model. */
export function formatActionResults(results: Array<{ header: string; output: string }>, notRun: number): string {
  const parts = results.map((r) => `${r.header}\n${r.output.trimEnd()}`);
  const n = results.length;
  let text = `[rt] Output of the ${n === 1 ? "block" : `${n} blocks`} in your last message:\n\n${parts.join("\n\n")}`;
  if (notRun > 0) text += `\n\n[rt] ${notRun} later block${notRun === 1 ? " was" : "s were"} not run.`;
  return text;
}
