// What `rt run` and `rt chat` share: turning flags, configuration and the
// session to continue into a ready Agent.
import type { Workspace } from "../workspace/workspace.js";
import { Agent } from "../agent/loop.js";
import { APPROVAL_MODES, type ApprovalMode } from "../agent/approval.js";
import type { UserInteraction } from "../agent/interaction.js";
import type { ToolChoice } from "../agent/providers/types.js";
import { SessionLog, latestSessionId, SessionError, type ProtocolChoice, type SessionState } from "../agent/session.js";
import { loadAgentSettings, priceFor, type AgentSettings } from "../agent/settings.js";
import { agentWorkspace } from "../agent/rtOnPath.js";
import { resolveModel, SetupError, type ModelChoice, type ResolvedModel } from "./resolveModel.js";

export { SetupError };

export type Flags = Record<string, string | boolean | number | undefined>;

export interface AgentSetup {
  agent: Agent;
  settings: AgentSettings;
  resolved: ResolvedModel;
  resumed: boolean;
}

function choice<T extends string>(value: unknown, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !allowed.includes(value as T))
    throw new SetupError(`--${flag} must be one of ${allowed.join(", ")}, not "${String(value)}"`);
  return value as T;
}

/** Opens the session to continue (--resume ID, --continue), if any. */
export function openSession(ws: Workspace, flags: Flags): { log: SessionLog; state: SessionState } | undefined {
  try {
    // --fork-session: a new session that starts as a copy of the one named (a branch; that one is kept).
    const fork = flags["fork-session"] === true;
    if (typeof flags.resume === "string")
      return fork ? SessionLog.fork(ws, flags.resume) : SessionLog.open(ws, flags.resume);
    if (flags.continue === true) {
      const id = latestSessionId(ws);
      if (!id) throw new SetupError(`no earlier session in ${ws.root} to continue; start one with rt run or rt chat`);
      return fork ? SessionLog.fork(ws, id) : SessionLog.open(ws, id);
    }
    if (fork) throw new SetupError("--fork-session needs --continue or --resume ID: the session to branch from");
  } catch (e) {
    if (e instanceof SessionError) throw new SetupError(e.message);
    throw e;
  }
  return undefined;
}

/** --model (or the continued session's model), --base-url and --api-key. */
export function modelChoice(flags: Flags, model: string | undefined): ModelChoice {
  return {
    ...(model ? { model } : {}),
    ...(typeof flags["base-url"] === "string" ? { baseUrl: flags["base-url"] } : {}),
    ...(typeof flags["api-key"] === "string" ? { apiKey: flags["api-key"] } : {}),
    ...(flags.yes === true ? { yes: true } : {}),
  };
}

/** `interaction`: how the face asks the user (approvals, ask_user, plan review); absent members cannot be asked. */
export async function setupAgent(ws: Workspace, flags: Flags, interaction: UserInteraction = {}): Promise<AgentSetup> {
  let settings: AgentSettings;
  try {
    settings = loadAgentSettings(ws);
  } catch (e) {
    throw new SetupError((e as Error).message);
  }
  const protocolFlag = choice<ProtocolChoice>(flags.protocol, ["tools", "text", "auto"], "protocol");
  const toolChoice =
    choice<ToolChoice>(flags["tool-choice"], ["auto", "required", "none"], "tool-choice") ?? settings.toolChoice;
  const approval: ApprovalMode = choice(flags.approval, APPROVAL_MODES, "approval") ?? settings.approval ?? "ask";
  const session = openSession(ws, flags);
  // A continued session keeps its model unless --model says otherwise.
  const modelFlag = typeof flags.model === "string" ? flags.model : session?.state.model;
  const resolved = await resolveModel(ws, modelChoice(flags, modelFlag));
  const protocol: ProtocolChoice = protocolFlag ?? settings.protocol ?? session?.state.header.protocol ?? "auto";
  // agent.small_model: checked like --model, so a wrong name is said at the start, not on first use.
  const small = settings.smallModel ? await resolveModel(ws, { model: settings.smallModel }) : undefined;
  const agent = new Agent({
    workspace: agentWorkspace(ws),
    provider: resolved.provider,
    model: resolved.model,
    modelLabel: resolved.label,
    protocol,
    approval,
    ...(interaction.approve ? { approve: interaction.approve } : {}),
    interaction: {
      ...(interaction.askUser ? { askUser: interaction.askUser } : {}),
      ...(interaction.reviewPlan ? { reviewPlan: interaction.reviewPlan } : {}),
      ...(interaction.beforeTool ? { beforeTool: interaction.beforeTool } : {}),
    },
    subagentDepth: settings.subagentDepth,
    // A subagent definition's model: resolved like --model, priced and sized like the session's.
    resolveModel: async (label) => {
      const r = await resolveModel(ws, { model: label });
      const price = priceFor(settings.prices, r.label);
      return {
        provider: r.provider,
        model: r.model,
        label: r.label,
        ...(price ? { price } : {}),
        ...(settings.contextWindow !== undefined ? { contextWindow: settings.contextWindow } : {}),
      };
    },
    maxTurns: typeof flags["max-turns"] === "number" ? flags["max-turns"] : settings.maxTurns,
    toolOutputMaxChars: settings.toolOutputMaxChars,
    promptCache: settings.promptCache,
    seedTools: flags["seed-names"] === true || settings.seedTools,
    deferTools: settings.deferTools,
    compactThreshold: settings.compactThreshold,
    ...(settings.contextWindow !== undefined ? { contextWindow: settings.contextWindow } : {}),
    ...(priceFor(settings.prices, resolved.label) ? { price: priceFor(settings.prices, resolved.label) } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(toolChoice ? { toolChoice } : {}),
    ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    ...(session ? { session } : {}),
    toolSet: settings.toolSet,
    ...(small ? { smallModel: small } : {}),
  });
  return { agent, settings, resolved, resumed: session !== undefined };
}
