// Approvals: which tool calls the agent may make without asking, which need a
// "yes" from the user, and which are refused. One pure decision function and
// a small stateful wrapper for "always (for this session)".
//
// Modes (`--approval`):
//   ask        reading is free; edits and commands ask (y / n / always).
//   auto-edit  edits are approved, commands still ask (Claude Code's
//              "accept edits"): editing is journaled and undoable (rt undo),
//              a shell command is not.
//   auto       everything is approved (for CI and throwaway containers; the
//              profile and its sandbox still apply).
//   never      nothing that needs approval runs: it is denied, and the model
//              is told so.
//   plan       only read-only tools are offered to the model; anything else
//              is denied. In text mode, commands run in the read-only sandbox.
// When a call must ask and the face has no way to ask (no terminal), it is
// denied with a message saying how to allow it.
import type { Tool } from "../tools/types.js";

export type ApprovalMode = "ask" | "auto-edit" | "auto" | "never" | "plan";
export const APPROVAL_MODES: readonly ApprovalMode[] = ["ask", "auto-edit", "auto", "never", "plan"];

/**
 * read: changes nothing. edit: changes files through rt (journaled, undoable).
 * command: runs a program. network: reads from the network (web_fetch): it
 * changes nothing, but what it sends (a URL can carry data) leaves the machine,
 * so the modes that ask, ask once per host.
 */
export type ApprovalCategory = "read" | "edit" | "command" | "network";

export type ApprovalAnswer = "yes" | "no" | "always";

/** What a face returns: an answer, or a "no" with the user's reason, which the model is told. */
export type ApprovalReply = ApprovalAnswer | { answer: "no"; reason: string };

export interface ApprovalRequest {
  tool: string;
  category: ApprovalCategory;
  args: unknown;
  /** One line for the prompt: `bash: npm test`, `edit src/a.ts`... */
  summary: string;
  /** Set when a subagent asks: "Explore: find the parser" (its type and description). */
  agent?: string;
}

/** Provided by an interactive face: shows the request and returns the user's answer. */
export type ApprovalCallback = (req: ApprovalRequest) => Promise<ApprovalReply>;

/** Tools that only touch background shells the agent already started (and was allowed to start). */
const SHELL_FOLLOW_UPS = new Set(["bash_output", "kill_shell"]);

export function categoryOf(tool: Tool): ApprovalCategory {
  if (tool.approvalScope) return "network";
  if (tool.readOnly || SHELL_FOLLOW_UPS.has(tool.name)) return "read";
  if (tool.editing || tool.name === "write_output") return "edit";
  return "command";
}

export type Decision = "allow" | "ask" | "deny";

/** The decision table. `always`: the user said "always" for this tool earlier in the session. */
export function decide(mode: ApprovalMode, category: ApprovalCategory, always: boolean): Decision {
  if (category === "read") return "allow";
  if (category === "network") {
    // Read-only, so plan mode may use it too; every mode but auto and never asks once per host.
    if (mode === "auto") return "allow";
    if (mode === "never") return "deny";
    return always ? "allow" : "ask";
  }
  switch (mode) {
    case "auto":
      return "allow";
    case "never":
    case "plan":
      return "deny";
    case "auto-edit":
      if (category === "edit") return "allow";
      return always ? "allow" : "ask";
    case "ask":
      return always ? "allow" : "ask";
  }
}

export type Verdict = { ok: true } | { ok: false; reason: string };

/** Whether a mode offers this tool to the model at all (plan mode offers read-only tools only). */
export function offeredIn(mode: ApprovalMode, tool: Tool): boolean {
  // bash_output and kill_shell follow a background `bash`, which plan mode does not offer.
  if (mode === "plan" && SHELL_FOLLOW_UPS.has(tool.name)) return false;
  return mode !== "plan" || categoryOf(tool) === "read" || categoryOf(tool) === "network";
}

/** What the approvals of a session and all its subagents share: the mode, the "always" answers, the question being asked. */
interface SharedApprovals {
  mode: ApprovalMode;
  readonly always: Set<string>;
  /** Settles when the question being asked is answered: questions are asked one at a time. */
  asking: Promise<unknown>;
}

export class Approvals {
  private readonly shared: SharedApprovals;

  constructor(
    mode: ApprovalMode,
    private readonly callback?: ApprovalCallback,
    /** Who asks, for a subagent's approvals (see forAgent). */
    private readonly agent?: string,
    shared?: SharedApprovals,
  ) {
    this.shared = shared ?? { mode, always: new Set(), asking: Promise.resolve() };
  }

  get mode(): ApprovalMode {
    return this.shared.mode;
  }

  /** Switches the mode for the session and its subagents (exit_plan_mode's accepted plan). */
  setMode(mode: ApprovalMode): void {
    this.shared.mode = mode;
  }

  /**
   * The approvals of a subagent: the same mode, the same "always" answers and
   * the same face, each question saying which subagent asks ("Explore: find
   * the parser").
   */
  forAgent(agent: string): Approvals {
    return new Approvals(this.shared.mode, this.callback, agent, this.shared);
  }

  /** Whether the model is offered this tool at all (plan mode offers read-only tools only). */
  offers(tool: Tool): boolean {
    return offeredIn(this.mode, tool);
  }

  /**
   * The verdict that needs nobody (the tool is free, or the mode refuses it),
   * or undefined when the user must be asked. It does not depend on the
   * arguments, so it can come before they are checked.
   */
  settled(tool: Tool, args?: unknown): Verdict | undefined {
    const decision = decide(this.mode, categoryOf(tool), this.shared.always.has(alwaysKey(tool, args)));
    if (decision === "allow") return { ok: true };
    if (decision === "deny") {
      return {
        ok: false,
        reason:
          this.mode === "plan"
            ? `${tool.name} is not available in plan mode (read-only tools only): describe the change instead of making it`
            : `${tool.name} needs approval and the approval mode is "never": it was not run. Continue without it, or tell the user what you would run and why`,
      };
    }
    return undefined;
  }

  /** The verdict on a call; asks the user when the mode says so. Give it checked arguments (policy.prepareCall). */
  async check(tool: Tool, args: unknown, summary: string, signal?: AbortSignal): Promise<Verdict> {
    const settled = this.settled(tool, args);
    if (settled) return settled;
    const category = categoryOf(tool);
    const callback = this.callback;
    if (!callback) {
      return {
        ok: false,
        reason: `${tool.name} needs approval and there is no terminal to ask on: it was not run. (The user can allow it with --approval auto-edit for edits or --approval auto for everything.)`,
      };
    }
    // One question at a time: parallel subagents queue up behind the question on screen, and
    // an "always" given meanwhile answers theirs.
    // A question still queued when the turn was interrupted (Ctrl-C) is not asked at all.
    const turn = this.shared.asking.then(
      async (): Promise<Verdict | ApprovalReply> =>
        signal?.aborted
          ? { ok: false, reason: "interrupted by the user: not run" }
          : (this.settled(tool, args) ??
            (await callback({
              tool: tool.name,
              category,
              args,
              summary,
              ...(this.agent ? { agent: this.agent } : {}),
            }))),
    );
    this.shared.asking = turn.catch(() => undefined);
    const reply = await turn;
    if (typeof reply === "object" && "ok" in reply) return reply;
    const answer = typeof reply === "string" ? reply : reply.answer;
    // A "yes" to a network call covers its host for the session (asked once per host).
    if (answer === "always" || (answer === "yes" && category === "network"))
      this.shared.always.add(alwaysKey(tool, args));
    if (answer === "no") {
      const said =
        typeof reply === "object" && reply.reason.trim() ? ` The user said why: "${reply.reason.trim()}".` : "";
      return {
        ok: false,
        reason: `the user denied ${summary}: it was not run.${said} Do not retry it unchanged; ask the user or take another approach`,
      };
    }
    return { ok: true };
  }
}

/** What an "always" covers: the tool, or for network tools the tool and the call's scope (its host). */
function alwaysKey(tool: Tool, args: unknown): string {
  if (!tool.approvalScope || args === undefined) return tool.name;
  let scope: string | undefined;
  try {
    scope = tool.approvalScope(args as never);
  } catch {
    scope = undefined;
  }
  return `${tool.name}\0${scope ?? ""}`;
}

/**
 * What a tool_create call would let the model run from then on: the tool's
 * name, its command (the script it writes, if any), its arguments schema and
 * its read-only claim with what rt makes of it, so the "yes" is to all of it.
 */
function describeToolCreate(a: Record<string, unknown>): string {
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
  const name = typeof a.name === "string" ? a.name : "?";
  const command = cut(JSON.stringify(a.command ?? null), 300);
  const script =
    a.script && typeof a.script === "object" ? (a.script as { file?: unknown; content?: unknown }) : undefined;
  const scriptPart =
    script && typeof script.file === "string"
      ? ` · writes .rt/tools/${script.file} (${typeof script.content === "string" ? script.content.split("\n").length : 0} lines)`
      : "";
  const schema = cut(JSON.stringify(a.parameters ?? null), 300);
  const claim =
    a.read_only === true
      ? "claims read-only: runs only in the read-only sandbox"
      : "a writer: changes files or runs programs unsandboxed as the profile allows (each call asks as a command does)";
  return `tool_create ${name}: command ${command}${scriptPart} · arguments ${schema} · ${claim}`;
}

/** A short description of a call for approval prompts and progress lines. */
export function describeCall(name: string, args: unknown): string {
  const a = (args && typeof args === "object" ? args : {}) as Record<string, unknown>;
  if (name === "tool_create") return describeToolCreate(a);
  if ((name === "todo_write" || name === "TodoWrite") && Array.isArray(a.todos)) return describeTodos(name, a.todos);
  if (typeof a.url === "string") return `${name} ${a.url.length > 200 ? `${a.url.slice(0, 200)}…` : a.url}`;
  if (typeof a.command === "string")
    return `${name}: ${a.command.length > 200 ? `${a.command.slice(0, 200)}…` : a.command}`;
  if (typeof a.pattern === "string")
    return `${name} ${JSON.stringify(a.pattern)}${typeof a.path === "string" ? ` ${a.path}` : ""}`;
  if (typeof a.path === "string") return `${name} ${a.path}`;
  if (typeof a.sql === "string") return `${name}: ${a.sql}`;
  return name;
}

/** todo_write in one line: how much of the list is done and what is being done (or comes next). */
function describeTodos(name: string, todos: unknown[]): string {
  const items = todos.filter((t): t is Record<string, unknown> => !!t && typeof t === "object");
  if (items.length === 0) return `${name}: list cleared`;
  const done = items.filter((t) => t.status === "completed").length;
  const active = items.find((t) => t.status === "in_progress");
  const next = items.find((t) => t.status === "pending");
  const text = (t: Record<string, unknown>, key: string) => String(t[key] ?? t.content ?? "");
  const tail = active ? ` · now: ${text(active, "activeForm")}` : next ? ` · next: ${text(next, "content")}` : "";
  const line = `${name}: ${done}/${items.length} done${tail}`;
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
