// The full-screen UI's logic without the terminal: it owns the Agent (built by
// agentSetup.ts, as `rt chat` builds it), runs the user's prompts and slash
// commands, feeds the agent's events to the Conversation, and turns the
// agent's questions (UserInteraction: approvals, ask_user, plan review) into
// dialogs that the keys answer. The Ink app (app.ts) draws it and sends it keys.
import type { Workspace } from "../../workspace/workspace.js";
import type { Agent } from "../../agent/loop.js";
import type { AgentEvent, AgentStreamEvent } from "../../agent/events.js";
import { APPROVAL_MODES, type ApprovalMode, type ApprovalReply } from "../../agent/approval.js";
import type { Asker, PlanDecision, UserAnswer, UserInteraction, UserQuestion } from "../../agent/interaction.js";
import { listSessions, readSessionRecords } from "../../agent/session.js";
import { sessionMarkdown } from "../../agent/exportMarkdown.js";
import { priceFor, type AgentSettings } from "../../agent/settings.js";
import { callTool } from "../../tools/policy.js";
import { DEFAULT_CONTEXT_WINDOW, TUI_RESUME_PROMPTS } from "../../base/limits.js";
import { describeCommands, resolveSlashCommand, type CustomCommand } from "../../extensions/slashCommands.js";
import { setupAgent, modelChoice, SetupError, type Flags, type AgentSetup } from "../agentSetup.js";
import { resolveModel } from "../resolveModel.js";
import { formatSessionList } from "../sessionList.js";
import { usageLine } from "../render.js";
import { Conversation } from "./conversation.js";
import { dialogKey, pickDialog, planDialog, questionsDialog, type Dialog, type DialogKey } from "./dialogs.js";
import {
  performRewind,
  planCodeRewind,
  pointLabel,
  rewindPoints,
  sessionRecords,
  type CodePlan,
  type RewindMode,
} from "../../agent/rewind.js";
import { CheckpointError } from "../../workspace/checkpoints.js";
import { memoryTarget, type MemoryScope } from "../../agent/memory.js";
import { SLASH_COMMANDS } from "./completion.js";
import { isPlainPrompt } from "../promptLine.js";
import { DEFAULT_TUI_SETTINGS, loadTuiSettings, type QueueWhen, type TuiSettings } from "./settings.js";

/** What a key does with a message typed while a turn runs, in words (the hint under the input, /help). */
export function queueWords(when: QueueWhen): string {
  return when === "next_tool_call" ? "at the next tool call" : "after the turn";
}

/** The other way of sending a message during a turn (Tab's, when Enter's is `when`). */
export function otherWay(when: QueueWhen): QueueWhen {
  return when === "next_tool_call" ? "after_turn" : "next_tool_call";
}

/** The keys, as /help lists them; `enter`: what Enter does with a message typed during a turn (tui.queued_prompts). */
export function keysHelp(enter: QueueWhen = DEFAULT_TUI_SETTINGS.queuedPrompts): string {
  return [
    "Enter sends · \\ then Enter, Alt+Enter or Shift+Enter (where the terminal tells it) starts a new line",
    `While a turn runs: Enter sends a message ${queueWords(enter)}, Tab ${queueWords(otherWay(enter))} ` +
      "(tui.queued_prompts swaps them) · ↑ on an empty prompt takes the last one back, Esc then drops it",
    "↑/↓ earlier prompts · Tab completes /commands and @paths · PageUp/PageDown (or the wheel) scroll · " +
      "End follows",
    "Esc interrupts the running turn, twice on an empty prompt rewinds (/rewind) · " +
      "Ctrl-C interrupts, twice on an empty prompt quits · Ctrl-D on an empty prompt quits",
    "Shift+Tab cycles the approval mode (ask → auto-edit → plan) · " +
      "Ctrl-O expands long results, reasoning and subagents · Ctrl-L redraws",
  ].join("\n");
}

/** A message typed while a turn runs, waiting: for the turn's next tool call, or for its end. */
export interface QueuedPrompt {
  text: string;
  when: QueueWhen;
}

export interface ControllerOptions {
  ws: Workspace;
  flags: Flags;
  customCommands: readonly CustomCommand[];
  /** Builds the agent: setupAgent in the app, the same in tests. */
  setup?: (flags: Flags, interaction: UserInteraction) => Promise<AgentSetup>;
  clock?: () => number;
  /** The UI's settings; default: the `tui` section of the configuration (settings.ts). */
  tuiSettings?: TuiSettings;
}

export class TuiController {
  readonly conv: Conversation;
  agent!: Agent;
  settings!: AgentSettings;
  contextWindow: number | undefined;
  contextTokens: number | undefined;
  /** The dialogs waiting, the first one shown. */
  readonly dialogs: Dialog[] = [];
  /** Set while a turn (or a compaction) runs. */
  private running: AbortController | undefined;
  private busy: Promise<void> | undefined;
  quitRequested = false;
  private listeners = new Set<() => void>();
  readonly interaction: UserInteraction;
  private flags: Flags;
  /** The UI's settings (tui.queued_prompts: what Enter does during a turn). */
  tuiSettings: TuiSettings = { ...DEFAULT_TUI_SETTINGS };

  constructor(private readonly opts: ControllerOptions) {
    this.conv = new Conversation(opts.clock);
    this.flags = { ...opts.flags };
    this.interaction = {
      approve: (req) => this.ask<ApprovalReply>((resolve) => ({ kind: "approval", request: req, resolve })),
      askUser: (questions: UserQuestion[], asker?: Asker) =>
        this.ask<UserAnswer[] | undefined>((resolve) => questionsDialog(questions, asker, resolve)),
      reviewPlan: (plan: string) => this.ask<PlanDecision>((resolve) => planDialog(plan, resolve)),
    };
  }

  /** Builds the agent; SetupError when the model cannot be reached or a flag is wrong. */
  async start(): Promise<void> {
    this.tuiSettings = this.opts.tuiSettings ?? loadTuiSettings(this.opts.ws);
    await this.build(this.flags);
    // --fork-session made its branch: later reopens (/approval) continue that branch, not another copy.
    this.flags["fork-session"] = undefined;
    this.conv.sessionUsage = this.agent.usage.usage;
    this.conv.sessionCost = this.agent.usage.cost;
    this.showContext();
  }

  private async build(flags: Flags): Promise<void> {
    const setup = this.opts.setup ?? ((f: Flags, i: UserInteraction) => setupAgent(this.opts.ws, f, i));
    const s = await setup(flags, this.interaction);
    this.agent = s.agent;
    this.settings = s.settings;
    this.conv.todos = [...this.agent.todos];
    this.contextWindow = s.settings.contextWindow;
    if (this.contextWindow === undefined) {
      // What the provider reports (Ollama's model info), asked once in the background; the status line fills in when it comes.
      const model = s.resolved.model;
      void (async () => {
        try {
          this.contextWindow = (await s.resolved.provider.contextWindow?.(model)) ?? DEFAULT_CONTEXT_WINDOW;
        } catch {
          this.contextWindow = DEFAULT_CONTEXT_WINDOW;
        }
        this.changed();
      })();
    }
    this.contextTokens = this.agent.estimateContextTokens();
  }

  subscribe(f: () => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  changed(): void {
    for (const f of this.listeners) f();
  }

  /** The approval mode now (an accepted plan leaves plan mode). */
  get approval(): ApprovalMode {
    return this.agent.approvalMode;
  }

  get customCommands(): readonly CustomCommand[] {
    return this.opts.customCommands;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Waits for the turn running now, if any (tests, and quitting). */
  async idle(): Promise<void> {
    await this.busy;
  }

  private ask<T>(make: (resolve: (v: T) => void) => Dialog): Promise<T> {
    return new Promise<T>((resolve) => {
      this.dialogs.push(make((v: T) => resolve(v)));
      this.changed();
    });
  }

  /** A key for the dialog shown; true when a dialog took it. */
  dialogKey(k: DialogKey): boolean {
    const d = this.dialogs[0];
    if (!d) return false;
    if (dialogKey(d, k)) this.dialogs.shift();
    this.changed();
    return true;
  }

  /** Esc / Ctrl-C during a turn: stop it; questions being asked end unanswered. */
  interrupt(): boolean {
    if (!this.running) return false;
    this.running.abort();
    this.dismissDialogs();
    this.changed();
    return true;
  }

  private dismissDialogs(): void {
    for (const d of this.dialogs.splice(0)) {
      if (d.kind === "approval") d.resolve("no");
      else if (d.kind === "questions" || d.kind === "pick") d.resolve(undefined);
      else d.resolve({ accept: false, feedback: "" });
    }
  }

  /**
   * Messages typed while a turn runs. Those for the next tool call are given to the running turn at its next
   * tool-call boundary (takeSteering); whatever is left when the turn ends is sent then, as one prompt.
   */
  readonly queued: QueuedPrompt[] = [];

  /**
   * Enter (or Tab) during a running turn: the message waits, for the turn's next tool call or for its end.
   * A command (`/`, `!`, `#`) or a prompt with `@server:uri` resources to attach always waits for the end:
   * only plain words can join a turn.
   */
  enqueue(text: string, when: QueueWhen = this.tuiSettings.queuedPrompts): void {
    if (text.trim() === "") return;
    this.queued.push({ text, when: when === "next_tool_call" && !isPlainPrompt(text) ? "after_turn" : when });
    this.changed();
  }

  /** ↑ on an empty input while prompts wait: the last one comes back out of the queue, to edit (or drop with Esc). */
  unqueueLast(): string | undefined {
    const last = this.queued.pop();
    this.changed();
    return last?.text;
  }

  /** The running turn's tool-call boundary (RunOptions.steering): the messages waiting for it leave the queue. */
  private takeSteering(): string[] {
    const taken: string[] = [];
    for (let i = 0; i < this.queued.length; ) {
      if (this.queued[i].when === "next_tool_call") taken.push(this.queued.splice(i, 1)[0].text);
      else i++;
    }
    if (taken.length) this.changed();
    return taken;
  }

  /**
   * The line the user sent: a slash command or a prompt. During a turn it waits (enqueue): `when` says for
   * what, default tui.queued_prompts (Enter's way; Tab passes the other).
   */
  submit(text: string, when?: QueueWhen): void {
    const input = text.trim();
    if (input === "") return;
    if (this.running) return this.enqueue(text, when);
    if (input.startsWith("/")) {
      void this.command(input);
      return;
    }
    if (input.startsWith("#")) {
      // `#NOTE`: remembered in the project's or the user's memory file, as the user picks.
      this.conv.addUser(input);
      void this.remember(input.slice(1));
      return;
    }
    if (input.startsWith("!")) {
      // `!COMMAND`: the user's own command, run now; its output joins the conversation for the next prompt.
      const command = input.slice(1).trim();
      this.conv.addUser(input);
      if (command === "") return this.note("!COMMAND runs COMMAND now and adds its output to the conversation");
      this.runTurn((signal) => this.agent.runUserCommand(command, { signal }), `Running ${command}…`);
      return;
    }
    this.conv.addUser(text);
    this.runTurn((signal) => this.sendLine(text, this.opts.customCommands, signal), "Thinking…");
  }

  /**
   * The turn of a line (promptLine.ts): a custom command's or an MCP prompt's text, `@server:uri` resources
   * attached; a line that cannot be sent ends as an error, nothing sent.
   */
  private async *sendLine(
    input: string,
    commands: readonly CustomCommand[],
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent> {
    const { promptForLine } = await import("../promptLine.js");
    const line = await promptForLine(this.agent, input, commands, { signal });
    if (line.kind !== "prompt") {
      const message = line.kind === "error" ? line.message : `unknown command ${input.split(/\s+/)[0]}`;
      yield { type: "notice", message, level: "warning" };
      return;
    }
    for (const p of line.problems) yield { type: "notice", message: p, level: "warning" };
    yield* this.agent.run(line.prompt, {
      signal,
      ...(line.allowedTools ? { allowedTools: line.allowedTools } : {}),
      steering: () => this.takeSteering(),
    });
  }

  private runTurn(events: (signal: AbortSignal) => AsyncGenerator<AgentEvent>, label: string): void {
    const controller = new AbortController();
    this.running = controller;
    this.conv.begin(label);
    this.changed();
    this.busy = (async () => {
      try {
        for await (const ev of events(controller.signal)) {
          this.conv.apply(ev as AgentStreamEvent);
          if (ev.type === "compact_start") this.contextWindow = ev.context_window;
          this.changed();
        }
      } catch (e) {
        this.conv.addNotice(`internal error: ${(e as Error).message}`, "error");
      } finally {
        this.running = undefined;
        this.dismissDialogs();
        this.conv.end();
        this.contextTokens = this.agent.estimateContextTokens();
        this.changed();
        // What was typed meanwhile goes now, as one prompt (the turn that just ended is complete in the history).
        if (this.queued.length && !this.quitRequested) {
          const next = this.queued
            .splice(0)
            .map((q) => q.text)
            .join("\n\n");
          setImmediate(() => this.submit(next));
        }
      }
    })();
  }

  private note(text: string, tone: "info" | "error" = "info"): void {
    this.conv.addNotice(text, tone);
    this.changed();
  }

  private async command(input: string): Promise<void> {
    const [cmd] = input.split(/\s+/);
    const arg = input.slice(cmd.length).trim();
    this.conv.addUser(input);
    switch (cmd) {
      case "/quit":
      case "/exit":
        this.quitRequested = true;
        this.changed();
        return;
      case "/help": {
        const rows = SLASH_COMMANDS.filter((c) => c.name !== "/exit").map(
          (c) => `  ${`${c.name}${c.args ? ` ${c.args}` : ""}`.padEnd(26)}${c.help}`,
        );
        const custom = this.opts.customCommands.length
          ? `\nCustom commands:\n${describeCommands(this.opts.customCommands)}`
          : "";
        return this.note(`Commands:\n${rows.join("\n")}${custom}\nKeys:\n${keysHelp(this.tuiSettings.queuedPrompts)}`);
      }
      case "/clear":
        this.agent.clear();
        this.conv.clear();
        this.contextTokens = this.agent.estimateContextTokens();
        return this.note("context cleared; the session log keeps the history");
      case "/compact":
        this.runTurn((signal) => this.agent.compact(arg || undefined, { signal }), "Compacting…");
        return;
      case "/sessions":
        return this.note(formatSessionList(listSessions(this.opts.ws), this.agent.sessionId).replace(/\n$/, ""));
      case "/model": {
        if (!arg) return this.note(`${this.agent.currentModel} (protocol: ${this.agent.currentProtocol})`);
        try {
          const r = await resolveModel(this.opts.ws, modelChoice(this.flags, arg));
          this.agent.setModel(
            r.provider,
            r.model,
            r.label,
            priceFor(this.settings.prices, r.label),
            this.settings.contextWindow,
          );
          this.flags.model = r.label;
          return this.note(`model: ${r.label}`);
        } catch (e) {
          return this.note((e as Error).message, "error");
        }
      }
      case "/approval": {
        if (!arg) return this.note(`approval mode: ${this.approval} (one of ${APPROVAL_MODES.join(", ")})`);
        if (!APPROVAL_MODES.includes(arg as ApprovalMode))
          return this.note(`approval mode must be one of ${APPROVAL_MODES.join(", ")}, not "${arg}"`, "error");
        // The mode is fixed when the agent is built: the same session continues with a new agent.
        return this.reopen(
          { ...this.flags, approval: arg, resume: this.agent.sessionId, continue: undefined },
          `approval mode: ${arg}`,
        );
      }
      case "/resume": {
        if (!arg) return this.note("/resume needs a session ID; /sessions lists them", "error");
        return this.reopen(
          { ...this.flags, resume: arg, continue: undefined, model: undefined },
          `resumed session ${arg}`,
          true,
        );
      }
      case "/export": {
        const file = this.agent.sessionFile;
        if (!file) return this.note("this session has no log to export yet", "error");
        const markdown = sessionMarkdown(readSessionRecords(this.opts.ws, file.split("/").pop()!));
        const r = await callTool(this.opts.ws, "write_output", {
          path: arg || `session-${this.agent.sessionId}.md`,
          content: markdown,
        });
        return this.note(r.success ? r.output : (r.error ?? r.output), r.success ? "info" : "error");
      }
      case "/cost": {
        const { usage, cost } = this.agent.usage;
        return this.note(
          `${usageLine(usage, usage, cost, cost).replace(/ · session:.*/, "")} · ${usage.requests} model request${usage.requests === 1 ? "" : "s"}${cost === undefined ? " · no prices configured for this model (agent.prices)" : ""}`,
        );
      }
      case "/todos": {
        const todos = this.agent.todos;
        if (todos.length === 0) return this.note("no todos: the agent has not written a todo list in this session");
        // As the panel shows them: the item in progress by its activeForm ("Fixing add").
        return this.note(
          todos
            .map((t) =>
              t.status === "completed"
                ? `[✓] ${t.content}`
                : t.status === "in_progress"
                  ? `[→] ${t.activeForm || t.content}`
                  : `[ ] ${t.content}`,
            )
            .join("\n"),
        );
      }
      case "/agents": {
        let text = "";
        const { listAgents } = await import("../agentList.js");
        await listAgents(this.opts.ws, false, { stdout: (t) => void (text += t), stderr: (t) => void (text += t) });
        return this.note(text.replace(/\n$/, ""));
      }
      case "/rewind":
        return this.rewind();
      case "/expand":
        this.expanded = !this.expanded;
        this.changed();
        return;
      default: {
        if (cmd.startsWith("/mcp__") || resolveSlashCommand(input, this.opts.customCommands)) {
          this.runTurn((signal) => this.sendLine(input, this.opts.customCommands, signal), "Thinking…");
          return;
        }
        return this.note(`unknown command ${cmd}; /help lists them`, "error");
      }
    }
  }

  /**
   * Shift+Tab: the next approval mode of the cycle ask → auto-edit → plan → ask
   * (from a mode outside it, ask). It applies from the next approval on, in
   * the turn running too, and is recorded in the session.
   */
  cycleApproval(): ApprovalMode {
    const cycle: ApprovalMode[] = ["ask", "auto-edit", "plan"];
    const i = cycle.indexOf(this.approval);
    const next = cycle[(i + 1) % cycle.length] ?? "ask";
    this.agent.setApprovalMode(i < 0 ? "ask" : next);
    this.flags.approval = this.approval;
    this.changed();
    return this.approval;
  }

  /** `#NOTE`: which memory (project or user) is asked, then the note is appended there. */
  private async remember(note: string): Promise<void> {
    if (note.trim() === "") return this.note("#NOTE remembers NOTE in the project's AGENTS.md or your own");
    const scopes: MemoryScope[] = ["project", "user"];
    const choice = await this.pick("Remember this note in which memory?", [
      {
        label: `Project memory: ${memoryTarget(this.opts.ws, "project").shown}`,
        description: "read by rt in this project",
      },
      { label: `User memory: ${memoryTarget(this.opts.ws, "user").shown}`, description: "read by rt in every project" },
    ]);
    if (choice === undefined) return this.note("not remembered");
    try {
      const done = this.agent.remember(scopes[choice], note);
      this.note(`remembered in ${done.file}`);
    } catch (e) {
      this.note((e as Error).message, "error");
    }
  }

  /** Text for the input (a rewound prompt, offered for editing); the app takes it on its next frame. */
  offeredInput: string | undefined;

  private pick(
    title: string,
    choices: Array<{ label: string; description?: string }>,
    cursor = 0,
    note?: string[],
  ): Promise<number | undefined> {
    return this.ask<number | undefined>((resolve) => pickDialog(title, choices, resolve, cursor, note));
  }

  /**
   * /rewind and Esc twice on an empty input: the session's prompts listed
   * (the last one chosen first), then what to restore; files changed outside
   * rt since the checkpoint are named and kept unless the user says otherwise.
   */
  async rewind(): Promise<void> {
    if (this.running) return this.note("a turn is running: Esc interrupts it, then /rewind", "error");
    if (this.rewinding) return;
    this.rewinding = true;
    try {
      await this.rewindSteps();
    } catch (e) {
      this.note(`rewind failed: ${(e as Error).message}`, "error");
    } finally {
      this.rewinding = false;
    }
  }

  private rewinding = false;

  private async rewindSteps(): Promise<void> {
    const sessionId = this.agent.sessionId;
    if (!this.agent.sessionFile)
      return this.note("this session has no log (state is off): there is nothing to rewind to", "error");
    const records = sessionRecords(this.opts.ws, sessionId);
    const points = rewindPoints(records);
    if (points.length === 0) return this.note("no prompts yet: there is nothing to rewind to");
    const choice = await this.pick(
      "Rewind to just before which prompt?",
      points.map((p) => ({ label: pointLabel(p), ...(p.ts ? { description: p.ts.slice(11, 19) } : {}) })),
      points.length - 1,
    );
    if (choice === undefined) return this.note("rewind cancelled");
    const point = points[choice];
    const modes: Array<{ mode: RewindMode; label: string }> = [
      { mode: "both", label: "Restore code and conversation" },
      { mode: "conversation", label: "Restore conversation only" },
      { mode: "code", label: "Restore code only" },
    ];
    const m = await this.pick(
      `Rewind to ${point.kind === "undo" ? "before that rewind" : `prompt ${point.n}`}: restore what?`,
      modes,
    );
    if (m === undefined) return this.note("rewind cancelled");
    const mode = modes[m].mode;
    let plan: CodePlan | undefined;
    if (mode !== "conversation") {
      try {
        plan = planCodeRewind(this.opts.ws, records, point);
      } catch (e) {
        if (e instanceof CheckpointError) return this.note(`${e.message}`, "error");
        throw e;
      }
    }
    let includeOutside = false;
    if (plan && plan.outside.length) {
      const o = await this.pick(
        "Changed outside rt since the checkpoint (by hand or another program):",
        [{ label: "Keep them, restore the rest" }, { label: "Restore them too (their changes are lost)" }],
        0,
        plan.outside
          .slice(0, 8)
          .map((f) => `  ${f}`)
          .concat(plan.outside.length > 8 ? [`  … and ${plan.outside.length - 8} more`] : []),
      );
      if (o === undefined) return this.note("rewind cancelled");
      includeOutside = o === 1;
    }
    const out = performRewind(this.opts.ws, sessionId, point, mode, plan, includeOutside, this.agent.sessionLog);
    const said: string[] = [];
    if (out.code) {
      const c = out.code;
      said.push(
        `code: ${c.written.length} restored, ${c.removed.length} removed${c.skipped.length ? `; kept ${c.skipped.map((s) => s.path).join(", ")}` : ""}`,
      );
    }
    if (out.session) {
      const next = out.session.log.id;
      out.session.log.close();
      said.push(`conversation: session ${next} (the earlier one, ${sessionId}, is kept)`);
      await this.reopen(
        { ...this.flags, resume: next, continue: undefined, "fork-session": undefined },
        `rewound: ${said.join("; ")}`,
        true,
      );
    } else this.note(`rewound: ${said.join("; ") || "nothing to restore"}`);
    if (out.prompt !== undefined) this.offeredInput = out.prompt;
    this.changed();
  }

  /** Long results, reasoning and subagents shown whole (Ctrl-O). */
  expanded = false;

  /** Replaces the agent by one built with `flags` (another session, another approval mode). */
  private async reopen(flags: Flags, done: string, showContext = false): Promise<void> {
    const old = this.agent;
    try {
      await this.build(flags);
    } catch (e) {
      return this.note(
        e instanceof SetupError ? e.message : `cannot reopen the session: ${(e as Error).message}`,
        "error",
      );
    }
    old.close();
    this.flags = { ...flags, resume: undefined };
    this.conv.sessionUsage = this.agent.usage.usage;
    this.conv.sessionCost = this.agent.usage.cost;
    if (showContext) {
      this.conv.clear();
      this.showContext();
    }
    this.note(done);
  }

  /** A continued session: its conversation as it was shown live, tool calls and their results included. */
  private showContext(): void {
    const t = this.agent.transcript(TUI_RESUME_PROMPTS);
    this.conv.replay(t.items, t.omittedPrompts);
    this.conv.todos = [...this.agent.todos];
    this.changed();
  }

  close(): void {
    this.running?.abort();
    this.dismissDialogs();
    this.agent?.close();
  }
}
