// The Agent: one session of the agent loop, as the faces (`rt run`, `rt chat`)
// use it. A thin facade: it opens the session, builds the LoopContext (the
// workspace, the model, the tool set, the approvals, the history, the limits)
// and hands each user turn to runUserTurn (turn.ts). Everything the loop does
// lives in those functions, so a subagent runs the same loop with a context of
// its own (see loopContext.ts).
import { expandCommandBody, type CommandExpansion } from "./commandBody.js";
import type { ResolvedCommand } from "../extensions/slashCommands.js";
import type { Provider, ToolChoice } from "./providers/types.js";
import type { AgentEvent, Protocol, TodoItem, UsageTotals } from "./events.js";
import type { UserInteraction } from "./interaction.js";
import { mainLoopTools } from "./sessionTools/index.js";
import { AGENT_DEFAULT_SUBAGENT_DEPTH } from "../base/limits.js";
import { Approvals, type ApprovalCallback, type ApprovalMode } from "./approval.js";
import { SessionLog, now, type ContextEntry, type ProtocolChoice, type SessionState } from "./session.js";
import type { Price } from "./settings.js";
import { withProfile } from "./rtOnPath.js";
import { History } from "./history.js";
import {
  createLoopContext,
  estimateContextTokens,
  setApprovalMode,
  setModel,
  type LoopContext,
  type ModelBinding,
} from "./loopContext.js";
import { compactContext } from "./compaction.js";
import { sessionToolSet, type ToolSetChoice } from "./toolSet.js";
import { runUserTurn, type RunOptions } from "./turn.js";
import type { Workspace } from "../workspace/workspace.js";
import { checkpointsEnabled, sessionCheckpointer } from "./rewind.js";
import { runUserCommand } from "./userCommand.js";
import { appendMemory, type MemoryScope } from "./memory.js";
import { sessionTranscript, type Transcript } from "./transcript.js";

export type { RunOptions } from "./turn.js";

export interface AgentOptions {
  /** The workspace tools run in (see agentWorkspace: `rt` on PATH). */
  workspace: Workspace;
  provider: Provider;
  /** The model name sent to the provider. */
  model: string;
  /** "provider/model", as shown and recorded in the session. */
  modelLabel: string;
  protocol: ProtocolChoice;
  approval: ApprovalMode;
  /** How an interactive face asks; without it, calls that need approval are denied. */
  approve?: ApprovalCallback;
  maxTurns?: number;
  toolOutputMaxChars?: number;
  /** Offer the seed-compatibility tools directly (`--seed-names`, agent.seed_tools). */
  seedTools?: boolean;
  /** Defer rarely used tools behind tool_search (default true; agent.defer_tools). */
  deferTools?: boolean;
  /** Prompt caching: the time to live of the cache entries, or "off" (default "5m"). */
  promptCache?: "5m" | "1h" | "off";
  /** Tokens; default: what the provider reports, else DEFAULT_CONTEXT_WINDOW. */
  contextWindow?: number;
  compactThreshold?: number;
  price?: Price;
  temperature?: number;
  /** agent.tool_choice / --tool-choice: auto, required, none. */
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  /** A session to continue; default: a new one. */
  session?: { log: SessionLog; state: SessionState };
  /** The tools offered to the model (agent.tools): every one, or the lean set for small models (toolSet.ts). */
  toolSet?: ToolSetChoice;
  /** agent.small_model, resolved: the model tools ask (web_fetch); default the session's. */
  smallModel?: { provider: Provider; model: string; label: string };
  /** What the face can ask beyond approvals: ask_user's questions, plan review (exit_plan_mode). */
  interaction?: Omit<UserInteraction, "approve">;
  /** Resolves a subagent definition's "provider/model" (with its price and window); without it only `inherit` works. */
  resolveModel?: (label: string) => Promise<ModelBinding>;
  /** agent.subagent_depth: how deep subagents nest (default 1: the main agent's subagents cannot start their own; 0: no subagents). */
  subagentDepth?: number;
}

export class Agent {
  private readonly ctx: LoopContext;

  constructor(opts: AgentOptions) {
    // Plan mode changes nothing: its commands (text mode) run as safe-read-only, in the sandbox.
    const ws = opts.approval === "plan" ? withProfile(opts.workspace, "safe-read-only") : opts.workspace;
    const approvals = new Approvals(opts.approval, opts.approve);
    const session = opts.session ?? SessionLog.create(ws, opts.modelLabel, opts.protocol);
    const subagentDepth = opts.subagentDepth ?? AGENT_DEFAULT_SUBAGENT_DEPTH;
    const toolsFor = (workspace: Workspace, approval: ApprovalMode) =>
      sessionToolSet({
        workspace,
        approval,
        ...(opts.toolSet ? { choice: opts.toolSet } : {}),
        loopTools: mainLoopTools(subagentDepth),
        ...(opts.seedTools !== undefined ? { seedTools: opts.seedTools } : {}),
        ...(opts.deferTools !== undefined ? { deferTools: opts.deferTools } : {}),
      });
    this.ctx = createLoopContext({
      workspace: ws,
      baseWorkspace: opts.workspace,
      toolsFor,
      subagentDepth,
      todos: session.state.todos,
      ...(opts.interaction ? { interaction: opts.interaction } : {}),
      ...(opts.resolveModel ? { resolveModel: opts.resolveModel } : {}),
      model: {
        provider: opts.provider,
        model: opts.model,
        label: opts.modelLabel,
        ...(opts.price ? { price: opts.price } : {}),
        ...(opts.contextWindow !== undefined ? { contextWindow: opts.contextWindow } : {}),
      },
      ...(opts.smallModel ? { smallModel: opts.smallModel } : {}),
      tools: toolsFor(ws, opts.approval),
      approvals,
      protocol: opts.protocol,
      ...(session.state.protocol ? { startProtocol: session.state.protocol } : {}),
      history: new History(session.log, session.state.context),
      // Checkpoints of the working tree before each turn (rewind.ts), for a session that has a log to name them in.
      ...(session.log.file && checkpointsEnabled(opts.workspace.env)
        ? { checkpoint: sessionCheckpointer(opts.workspace, session.log) }
        : {}),
      totals: { usage: session.state.usage, ...(session.state.cost !== undefined ? { cost: session.state.cost } : {}) },
      limits: {
        ...(opts.maxTurns !== undefined ? { maxTurns: opts.maxTurns } : {}),
        ...(opts.toolOutputMaxChars !== undefined ? { toolOutputMaxChars: opts.toolOutputMaxChars } : {}),
        ...(opts.promptCache !== undefined ? { promptCache: opts.promptCache } : {}),
        ...(opts.compactThreshold !== undefined ? { compactThreshold: opts.compactThreshold } : {}),
        ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
        ...(opts.toolChoice !== undefined ? { toolChoice: opts.toolChoice } : {}),
        ...(opts.maxOutputTokens !== undefined ? { maxOutputTokens: opts.maxOutputTokens } : {}),
      },
    });
    if (opts.session && session.state.model !== opts.modelLabel)
      session.log.append({ t: "model", model: opts.modelLabel, ts: now() });
  }

  get sessionId(): string {
    return this.ctx.history.log.id;
  }

  get sessionFile(): string | undefined {
    return this.ctx.history.log.file;
  }

  get currentModel(): string {
    return this.ctx.model.label;
  }

  get currentProtocol(): Protocol {
    return this.ctx.protocol;
  }

  /** The approval mode now (an accepted plan leaves plan mode). */
  get approvalMode(): ApprovalMode {
    return this.ctx.approvals.mode;
  }

  /** The todo list as todo_write last left it. */
  get todos(): readonly TodoItem[] {
    return this.ctx.todos;
  }

  get usage(): { usage: UsageTotals; cost?: number } {
    const totals = this.ctx.totals;
    return { usage: totals.usage, ...(totals.cost !== undefined ? { cost: totals.cost } : {}) };
  }

  /** The context the model sees next (for faces that show it, and for tests). */
  get contextMessages(): readonly ContextEntry[] {
    return this.ctx.history.context;
  }

  /** Switches model (/model). With protocol auto, tools are tried again. */
  setModel(provider: Provider, model: string, label: string, price?: Price, contextWindow?: number): void {
    setModel(this.ctx, {
      provider,
      model,
      label,
      ...(price ? { price } : {}),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
    });
  }

  /** The session's log (rewind appends to it). */
  get sessionLog(): SessionLog {
    return this.ctx.history.log;
  }

  /** Switches the approval mode for the session and its subagents (an editor's mode menu, Shift+Tab); recorded in the session. */
  setApprovalMode(mode: ApprovalMode): void {
    if (mode !== this.ctx.approvals.mode) setApprovalMode(this.ctx, mode);
  }

  /** Empties the context (/clear); the log keeps the history. */
  clear(): void {
    this.ctx.history.clear();
  }

  close(): void {
    this.ctx.history.log.close();
  }

  /** Runs one user turn. Ends with `turn_complete`, or with `error` (the session keeps what was done). */
  run(prompt: string, opts: RunOptions = {}): AsyncGenerator<AgentEvent> {
    return runUserTurn(this.ctx, prompt, opts);
  }

  /**
   * A custom slash command's prompt made ready to send: its !`commands` run (as
   * its allowed-tools and the approval mode permit) and its @files attached
   * (commandBody.ts); an error says why nothing can be sent.
   */
  expandCommand(resolved: ResolvedCommand, opts: RunOptions = {}): Promise<CommandExpansion> {
    return expandCommandBody(this.ctx, resolved, opts.signal);
  }

  /**
   * Runs a command the user typed at the prompt (`!COMMAND`) through the bash
   * tool; its result joins the conversation for the next prompt (userCommand.ts).
   */
  runUserCommand(command: string, opts: RunOptions = {}): AsyncGenerator<AgentEvent> {
    return runUserCommand(this.ctx, command, opts.signal);
  }

  /**
   * Appends a `#` note to the project's or the user's memory file (memory.ts);
   * the next request's system prompt holds it. MemoryError says why not.
   */
  remember(scope: MemoryScope, note: string): { file: string } {
    const done = appendMemory(this.ctx.baseWorkspace, scope, note);
    this.ctx.instructionsVersion = (this.ctx.instructionsVersion ?? 0) + 1;
    return done;
  }

  /** This session's conversation as the faces showed it, its last `maxPrompts` prompts (transcript.ts). */
  transcript(maxPrompts?: number): Transcript {
    if (!this.sessionFile) return { items: [], omittedPrompts: 0 };
    return sessionTranscript(this.ctx.baseWorkspace, this.sessionId, maxPrompts);
  }

  /** Forces compaction (/compact [instructions]): prune, then summarize everything. */
  compact(instructions?: string, opts: RunOptions = {}): AsyncGenerator<AgentEvent> {
    return compactContext(this.ctx, "manual", instructions, opts.signal);
  }

  /** Tokens the next request will take: the provider's last count plus what was added since, or an estimate. */
  estimateContextTokens(): number {
    return estimateContextTokens(this.ctx);
  }
}
