// What the agent may ask of the person at the keyboard, beyond approvals:
// structured questions (ask_user) and the review of a plan (exit_plan_mode).
// An interactive face (the line REPL, the full-screen UI) provides these
// callbacks; without one, the tools tell the model that nobody can answer.
// This is the contract between the agent and its faces:
// the UI consumes events and answers these callbacks, and nothing else.
import type { ApprovalCallback, ApprovalMode } from "./approval.js";

/** One question of ask_user (Claude Code's AskUserQuestion shape). */
export interface UserQuestion {
  question: string;
  /** At most 12 characters: a chip/tab label. */
  header: string;
  /** 2-4 choices; the face always adds "Other" with free text. */
  options: { label: string; description: string }[];
  multiSelect: boolean;
}

/** The answer to one question: the labels chosen, and the free text when "Other" was chosen. */
export interface UserAnswer {
  question: string;
  selected: string[];
  other?: string;
}

/** Who asks: undefined for the main agent, else the subagent's type and description. */
export interface Asker {
  subagent_type: string;
  description: string;
}

/** Shows the questions and returns the answers in order; undefined when the user dismissed them. */
export type AskUserCallback = (questions: UserQuestion[], asker?: Asker) => Promise<UserAnswer[] | undefined>;

/** The user's verdict on a plan presented with exit_plan_mode. */
export type PlanDecision = { accept: true; approval: ApprovalMode } | { accept: false; feedback: string };

export type PlanReviewCallback = (plan: string) => Promise<PlanDecision>;

/**
 * Called with a checked call just before its tool runs: a face that holds
 * files of its own (an editor's unsaved buffers, `rt acp`) puts them in the
 * workspace's editorBuffers so that the tool reads and edits what the user sees.
 */
export type BeforeToolCallback = (tool: string, args: unknown) => Promise<void>;

/** Everything an interactive face can answer. Absent members: nobody can answer that. */
export interface UserInteraction {
  approve?: ApprovalCallback;
  askUser?: AskUserCallback;
  reviewPlan?: PlanReviewCallback;
  beforeTool?: BeforeToolCallback;
}
