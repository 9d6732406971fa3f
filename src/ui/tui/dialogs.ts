// The dialogs of the full-screen UI, as state machines over keys: an approval
// (y / n / a), ask_user's questions (arrow keys, multi-select, "Other" with free
// text) and the review of a plan (accept with an approval mode, or reject with
// feedback). Each ends by resolving the promise the agent's callback returned.
// Pure: keys in, lines out (dialogLines), so they are tested without a terminal.
import type { ApprovalMode, ApprovalReply, ApprovalRequest } from "../../agent/approval.js";
import type { Asker, PlanDecision, UserAnswer, UserQuestion } from "../../agent/interaction.js";
import type { Palette } from "./palette.js";
import { truncate } from "./lines.js";
import { callPreview } from "./callPreview.js";
import { TUI_APPROVAL_PREVIEW_LINES } from "../../base/limits.js";

/** The keys a dialog understands, already decoded from the terminal's bytes. */
export interface DialogKey {
  input: string;
  up?: boolean;
  down?: boolean;
  enter?: boolean;
  escape?: boolean;
  backspace?: boolean;
  space?: boolean;
}

export interface ApprovalDialog {
  kind: "approval";
  request: ApprovalRequest;
  resolve: (a: ApprovalReply) => void;
  /** After `n`: the reason being typed for the model (Enter sends it; empty: no reason). */
  reason?: string;
}

interface Choice {
  label: string;
  description?: string;
  /** Choosing it opens a text field ("Other", a plan's feedback). */
  freeText?: boolean;
}

/** A list of choices (one question of ask_user, or the plan review), one or several to pick. */
interface ChoiceStep {
  title: string;
  header?: string;
  choices: Choice[];
  multi: boolean;
  cursor: number;
  picked: Set<number>;
  /** Being typed for the free-text choice; undefined while the list has the keys. */
  typing?: string;
  text?: string;
}

export interface QuestionsDialog {
  kind: "questions";
  asker?: Asker;
  questions: UserQuestion[];
  step: number;
  steps: ChoiceStep[];
  resolve: (answers: UserAnswer[] | undefined) => void;
}

export interface PlanDialog {
  kind: "plan";
  plan: string;
  step: ChoiceStep;
  resolve: (d: PlanDecision) => void;
}

/** One choice from a list that rt itself offers (the rewind points, what to restore): the index, or undefined on Esc. */
export interface PickDialog {
  kind: "pick";
  step: ChoiceStep;
  /** Lines shown above the title (the files a rewind would keep). */
  note?: string[];
  resolve: (i: number | undefined) => void;
}

export type Dialog = ApprovalDialog | QuestionsDialog | PlanDialog | PickDialog;

export function pickDialog(
  title: string,
  choices: Array<{ label: string; description?: string }>,
  resolve: (i: number | undefined) => void,
  cursor = 0,
  note?: string[],
): PickDialog {
  return {
    kind: "pick",
    step: { title, choices, multi: false, cursor, picked: new Set() },
    ...(note ? { note } : {}),
    resolve,
  };
}

export function questionsDialog(
  questions: UserQuestion[],
  asker: Asker | undefined,
  resolve: (a: UserAnswer[] | undefined) => void,
): QuestionsDialog {
  return {
    kind: "questions",
    questions,
    ...(asker ? { asker } : {}),
    step: 0,
    steps: questions.map((q) => ({
      title: q.question,
      header: q.header,
      choices: [
        ...q.options.map((o) => ({ label: o.label, description: o.description })),
        { label: "Other", description: "type your own answer", freeText: true },
      ],
      multi: q.multiSelect,
      cursor: 0,
      picked: new Set<number>(),
    })),
    resolve,
  };
}

/** The approval modes a plan can be accepted with, in the order offered. */
const PLAN_MODES: Array<{ mode: ApprovalMode; label: string }> = [
  { mode: "auto-edit", label: "Yes, and approve edits automatically (auto-edit)" },
  { mode: "ask", label: "Yes, and ask before each edit and command (ask)" },
  { mode: "auto", label: "Yes, and approve everything (auto)" },
];

export function planDialog(plan: string, resolve: (d: PlanDecision) => void): PlanDialog {
  return {
    kind: "plan",
    plan,
    step: {
      title: "Proceed with this plan?",
      choices: [
        ...PLAN_MODES.map((m) => ({ label: m.label })),
        { label: "No, keep planning", description: "tell the model what to change", freeText: true },
      ],
      multi: false,
      cursor: 0,
      picked: new Set(),
    },
    resolve,
  };
}

/** Applies a key; true when the dialog is finished (its promise resolved). */
export function dialogKey(d: Dialog, k: DialogKey): boolean {
  if (d.kind === "approval") {
    if (d.reason !== undefined) {
      if (k.escape) return (d.resolve("no"), true);
      if (k.enter) return (d.resolve(d.reason.trim() ? { answer: "no", reason: d.reason.trim() } : "no"), true);
      if (k.backspace) d.reason = d.reason.slice(0, -1);
      else if (k.input && !/[\x00-\x1f]/.test(k.input)) d.reason += k.input;
      return false;
    }
    const c = k.input.toLowerCase();
    if (c === "y") return (d.resolve("yes"), true);
    if (c === "a") return (d.resolve("always"), true);
    if (k.escape) return (d.resolve("no"), true);
    if (c === "n") d.reason = "";
    return false;
  }
  if (d.kind === "pick") {
    if (k.escape) return (d.resolve(undefined), true);
    if (!stepKey(d.step, k)) return false;
    d.resolve(d.step.cursor);
    return true;
  }
  if (d.kind === "plan") {
    if (k.escape && d.step.typing === undefined) return (d.resolve({ accept: false, feedback: "" }), true);
    const done = stepKey(d.step, k);
    if (!done) return false;
    const i = d.step.cursor;
    if (i < PLAN_MODES.length) d.resolve({ accept: true, approval: PLAN_MODES[i].mode });
    else d.resolve({ accept: false, feedback: d.step.text ?? "" });
    return true;
  }
  if (k.escape && d.steps[d.step].typing === undefined) return (d.resolve(undefined), true);
  if (!stepKey(d.steps[d.step], k)) return false;
  d.step++;
  if (d.step < d.steps.length) return false;
  d.resolve(
    d.steps.map((s, qi) => {
      const chosen = s.multi ? [...s.picked].sort((a, b) => a - b) : [s.cursor];
      const other = chosen.some((i) => s.choices[i].freeText);
      return {
        question: d.questions[qi].question,
        selected: chosen.filter((i) => !s.choices[i].freeText).map((i) => s.choices[i].label),
        ...(other ? { other: s.text ?? "" } : {}),
      };
    }),
  );
  return true;
}

/** One step's key; true when the step is answered. */
function stepKey(s: ChoiceStep, k: DialogKey): boolean {
  if (s.typing !== undefined) {
    if (k.escape) s.typing = undefined;
    else if (k.enter) {
      s.text = s.typing;
      s.typing = undefined;
      // In a multi-select, the free text is one more pick; Enter on the list ends the question.
      if (!s.multi) return true;
      s.picked.add(s.cursor);
    } else if (k.backspace) s.typing = s.typing.slice(0, -1);
    else if (k.input && !/[\x00-\x1f]/.test(k.input)) s.typing += k.input;
    return false;
  }
  if (k.up) s.cursor = (s.cursor + s.choices.length - 1) % s.choices.length;
  else if (k.down) s.cursor = (s.cursor + 1) % s.choices.length;
  else if (/^[1-9]$/.test(k.input) && Number(k.input) <= s.choices.length) s.cursor = Number(k.input) - 1;
  else if (s.multi && (k.space || k.input === " ")) {
    if (s.choices[s.cursor].freeText && !s.picked.has(s.cursor)) s.typing = s.text ?? "";
    else if (s.picked.has(s.cursor)) s.picked.delete(s.cursor);
    else s.picked.add(s.cursor);
  } else if (k.enter) {
    if (s.multi) return s.picked.size > 0;
    if (s.choices[s.cursor].freeText) {
      s.typing = s.text ?? "";
      return false;
    }
    return true;
  }
  return false;
}

export function dialogLines(
  d: Dialog,
  p: Palette,
  width: number,
  markdown?: (text: string, width: number) => string[],
): string[] {
  const out: string[] = [];
  const w = Math.max(20, width);
  if (d.kind === "approval") {
    const r = d.request;
    const verb =
      r.category === "edit" ? "edit" : r.category === "command" ? "run" : r.category === "network" ? "fetch" : "use";
    out.push(p.yellow(truncate(`${r.agent ? `[${r.agent}] ` : ""}rt wants to ${verb}: ${r.summary}`, w)));
    const preview = callPreview(r.args);
    for (const l of preview.slice(0, TUI_APPROVAL_PREVIEW_LINES)) {
      const text = truncate(`  ${l.text}`, w);
      out.push(l.tone === "add" ? p.green(text) : l.tone === "remove" ? p.red(text) : text);
    }
    if (preview.length > TUI_APPROVAL_PREVIEW_LINES)
      out.push(p.dim(`  … ${preview.length - TUI_APPROVAL_PREVIEW_LINES} more lines`));
    if (d.reason !== undefined)
      out.push(`${p.bold("No")}, because (Enter sends it to the model, empty for no reason): ${d.reason}▏`);
    else
      out.push(
        `${p.bold("y")} yes   ${p.bold("n")} no (then why)   ${p.bold("a")} always (this session)   ${p.dim("Esc = no")}`,
      );
    return out;
  }
  if (d.kind === "pick") {
    for (const l of d.note ?? []) out.push(truncate(l, w));
    out.push(p.yellow(truncate(d.step.title, w)));
    stepLines(d.step, p, w, out);
    return out;
  }
  if (d.kind === "plan") {
    out.push(p.yellow("The agent's plan:"));
    const planLines = markdown ? markdown(d.plan, w - 2) : d.plan.split("\n").map((l) => truncate(l, w - 2));
    const cap = 14;
    for (const l of planLines.slice(0, cap)) out.push(`  ${l}`);
    if (planLines.length > cap)
      out.push(p.dim(`  … ${planLines.length - cap} more lines (the whole plan is in the conversation)`));
    stepLines(d.step, p, w, out);
    return out;
  }
  const s = d.steps[d.step];
  const who = d.asker ? `[${d.asker.subagent_type}: ${d.asker.description}] ` : "";
  out.push(
    p.yellow(
      truncate(
        `${who}${d.steps.length > 1 ? `(${d.step + 1}/${d.steps.length}) ` : ""}${s.header ? `${s.header}: ` : ""}${s.title}`,
        w,
      ),
    ),
  );
  stepLines(s, p, w, out);
  return out;
}

function stepLines(s: ChoiceStep, p: Palette, w: number, out: string[]): void {
  s.choices.forEach((c, i) => {
    const here = i === s.cursor;
    const mark = s.multi ? (s.picked.has(i) ? "[x] " : "[ ] ") : "";
    const text = c.freeText && s.text ? `${c.label}: ${s.text}` : c.label;
    const line = truncate(
      `${here ? "❯" : " "} ${i + 1}. ${mark}${text}${c.description ? ` — ${c.description}` : ""}`,
      w,
    );
    out.push(here ? p.cyan(line) : line);
  });
  if (s.typing !== undefined) out.push(`  > ${s.typing}${p.inverse(" ")}`);
  else
    out.push(
      p.dim(
        s.multi
          ? "↑/↓ move · Space picks · Enter confirms · Esc dismisses"
          : "↑/↓ move · Enter chooses · Esc dismisses",
      ),
    );
}
