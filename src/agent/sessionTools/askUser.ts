// ask_user (Claude Code's AskUserQuestion): the model asks the user one to four
// multiple-choice questions and gets the answers back as the tool result. The
// face shows them (the line REPL as numbered lists, the full-screen UI as a
// dialog) and always offers "Other" with free text. Without a face that can
// ask (rt run, MCP, a pipe), the model is told that nobody can answer and to
// go on with its best assumption, stated.
import * as z from "zod";
import { defineLoopTool } from "./loopTool.js";
import { ok, fail } from "../../tools/types.js";
import type { UserAnswer, UserQuestion } from "../interaction.js";

export const NO_USER_ANSWER =
  "No user can answer questions in this session (it is not interactive). Do not wait for an answer: proceed with your best assumption for each question, and state the assumptions you made in your answer.";

const option = z
  .object({
    label: z.string().trim().min(1).max(60).describe("The choice as shown (1-5 words)."),
    description: z.string().max(300).describe("What choosing it means, its trade-offs."),
  })
  .strict();

const question = z
  .object({
    question: z.string().trim().min(1).max(500).describe("The whole question, ending with a question mark."),
    header: z
      .string()
      .trim()
      .min(1)
      .max(12, 'header is at most 12 characters (a short label such as "Database")')
      .describe("A label of at most 12 characters."),
    options: z
      .array(option)
      .min(2, "give 2 to 4 options")
      .max(4, "give 2 to 4 options (the user can always answer Other)"),
    multiSelect: z.boolean().describe("True when several options may be chosen together."),
  })
  .strict();

export const askUserTool = defineLoopTool({
  name: "ask_user",
  aliases: ["AskUserQuestion"],
  description: `Asks the user 1-4 multiple-choice questions and returns their answers. Use it when a decision is the user's to make and you cannot infer it (a design choice, which of several plausible meanings they want, a preference); not for things you can find out from the code. Each question: question, header (at most 12 characters), 2-4 options (label, description) and multiSelect. The user may always answer "Other" with their own text, so do not add an "Other" option. If nobody can answer (a non-interactive run), proceed with your best assumption and say so.`,
  schema: () =>
    z.object({ questions: z.array(question).min(1, "ask 1 to 4 questions").max(4, "ask 1 to 4 questions") }).strict(),
  alone: true,
  async runInLoop(ctx, args, call) {
    const questions: UserQuestion[] = args.questions.map((q) => ({
      question: q.question,
      header: q.header,
      options: q.options.map((o) => ({ label: o.label, description: o.description })),
      multiSelect: q.multiSelect,
    }));
    const texts = new Set(questions.map((q) => q.question));
    if (texts.size !== questions.length) return fail("two questions are the same; ask each once");
    for (const q of questions) {
      const labels = new Set(q.options.map((o) => o.label.toLowerCase()));
      if (labels.size !== q.options.length)
        return fail(`the options of "${q.header}" repeat a label; each option needs its own`);
    }
    const ask = ctx.interaction.askUser;
    if (!ask) return ok(NO_USER_ANSWER);
    const answers = await ask(questions, ctx.asker);
    if (call.signal?.aborted) return fail("interrupted by the user before answering");
    if (!answers)
      return ok(
        "The user dismissed the questions without answering. Do not ask again right away: continue with your best assumption and state it, or stop and explain what you need.",
      );
    return ok(formatAnswers(questions, answers));
  },
});

/** The answers as the model reads them: one line per question. */
export function formatAnswers(questions: readonly UserQuestion[], answers: readonly UserAnswer[]): string {
  const lines = questions.map((q, i) => {
    const a = answers[i];
    if (!a || (a.selected.length === 0 && !a.other)) return `"${q.question}" → (no answer)`;
    const parts = [...a.selected.map((s) => `"${s}"`), ...(a.other ? [`Other: "${a.other}"`] : [])];
    return `"${q.question}" → ${parts.join(", ")}`;
  });
  return `The user answered:\n${lines.join("\n")}\nGo on with these answers in mind.`;
}
