// ask_user's questions and exit_plan_mode's plan review for the line faces
// (`rt chat --plain`, `rt run` on a terminal): numbered choices read from the
// LineReader, so they work the same typed at a terminal or piped in. The end
// of input (Ctrl-D, Ctrl-C at the question) dismisses them.
import type { AskUserCallback, PlanReviewCallback, UserAnswer, UserQuestion } from "../agent/interaction.js";
import type { ApprovalMode } from "../agent/approval.js";
import type { LineReader } from "./lineReader.js";

/** Reads one question's answer: numbers (several with multiSelect), or any other text as "Other". Null: dismissed. */
async function askOne(
  reader: LineReader,
  write: (s: string) => void,
  q: UserQuestion,
  n: number,
  of: number,
): Promise<UserAnswer | null> {
  const other = q.options.length + 1;
  write(`\n[${q.header}]${of > 1 ? ` (${n}/${of})` : ""} ${q.question}\n`);
  q.options.forEach((o, i) => write(`  ${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ""}\n`));
  write(`  ${other}. Other (type your own answer)\n`);
  const hint = q.multiSelect
    ? `Choose one or more of 1-${other} (e.g. 1,3), or type an answer: `
    : `Choose 1-${other}, or type an answer: `;
  for (;;) {
    const line = await reader.next(hint);
    if (line === null) return null;
    const text = line.trim();
    if (text === "") continue;
    const picks = /^\d+(\s*[, ]\s*\d+)*$/.test(text) ? [...new Set(text.split(/[\s,]+/).map(Number))] : undefined;
    if (!picks) return { question: q.question, selected: [], other: text };
    if (picks.some((p) => p < 1 || p > other)) {
      write(`Please choose between 1 and ${other}.\n`);
      continue;
    }
    if (!q.multiSelect && picks.length > 1) {
      write("Choose one.\n");
      continue;
    }
    const selected = picks.filter((p) => p !== other).map((p) => q.options[p - 1].label);
    if (!picks.includes(other)) return { question: q.question, selected };
    const own = await reader.next("Your answer: ");
    if (own === null) return null;
    return { question: q.question, selected, ...(own.trim() ? { other: own.trim() } : {}) };
  }
}

export function askQuestionsOnLines(reader: LineReader, write: (s: string) => void): AskUserCallback {
  return async (questions, asker) => {
    // The events before the question (ask_user's own tool line among them) are printed by the face's
    // loop a few ticks after they were emitted: let them out first, so none lands on the prompt line.
    await new Promise((resolve) => setImmediate(resolve));
    if (asker) write(`\n[${asker.subagent_type}: ${asker.description}] asks:`);
    const answers: UserAnswer[] = [];
    for (let i = 0; i < questions.length; i++) {
      const a = await askOne(reader, write, questions[i], i + 1, questions.length);
      if (a === null) return undefined;
      answers.push(a);
    }
    return answers;
  };
}

const PLAN_CHOICES: Record<string, ApprovalMode> = { y: "ask", yes: "ask", e: "auto-edit", a: "auto" };

export function reviewPlanOnLines(reader: LineReader, write: (s: string) => void): PlanReviewCallback {
  return async (plan) => {
    write(`\n── Plan ──\n${plan.trim()}\n──────────\n`);
    for (;;) {
      const line = await reader.next(
        "Accept this plan? [y]es (edits and commands ask) / [e] yes, approve edits / [a] yes, approve everything / [n]o: ",
      );
      if (line === null) return { accept: false, feedback: "" };
      const a = line.trim().toLowerCase();
      const mode = PLAN_CHOICES[a];
      if (mode) return { accept: true, approval: mode };
      if (a === "n" || a === "no") {
        const feedback = await reader.next("What should change? ");
        return { accept: false, feedback: feedback?.trim() ?? "" };
      }
      write("Please answer y, e, a or n.\n");
    }
  };
}
