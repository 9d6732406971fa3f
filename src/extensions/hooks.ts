// Hooks with Claude Code's event names and JSON contract: the
// `hooks` section of rt's configuration (the user's, and the project's only in
// a trusted folder, as configTrust.ts rules every "hooks" key) maps an event to
// matcher groups, each with commands:
//
//   {"hooks": {"PreToolUse": [{"matcher": "bash|write", "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
//
// A command runs with `bash -c` in the workspace root (it is the user's own
// command line), gets the event as JSON on standard input (session_id, cwd,
// hook_event_name, and tool_name / tool_input / tool_response / prompt /
// trigger...), and answers with its exit code and output: exit 0 with
// optional JSON on stdout (decision "block" + reason, hookSpecificOutput's
// permissionDecision / updatedInput / additionalContext, continue: false,
// systemMessage), exit 2 to block with stderr as the reason, anything else is
// a failure that is reported (never silently ignored) and does not block.
//
// Hooks come in two dialects. A hook of Claude Code's settings files
// (claudeSettings.ts), or one of rt's whose matcher names Claude Code's tools
// (`Bash`, `Edit|Write`), is a hook written for Claude Code: its matcher is
// tested against Claude Code's name for the tool, and it gets Claude Code's
// tool_name and argument names in tool_input (claudeToolNames.ts), so that a
// script written for Claude Code runs unchanged; the arguments it gives back
// (updatedInput) are turned into rt's before the policy checks them. Every
// other hook sees rt's own names.
import { startCommand } from "../shell/runner.js";
import { HOOK_DEFAULT_TIMEOUT_S, HOOK_OUTPUT_MAX_BYTES, HOOK_TIMEOUT_MAX_S } from "../base/limits.js";
import {
  claudeToolName,
  fromClaudeInput,
  namesClaudeTool,
  RT_TOOLS_WITH_CLAUDE_NAMES,
  toClaudeInput,
} from "./claudeToolNames.js";

export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SessionStart",
  "PreCompact",
  "SubagentStop",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Claude Code's events rt has no moment for: a hook of one is reported as not run, never silently dropped. */
const EVENTS_NOT_RUN = [
  "Notification",
  "SessionEnd",
  "PermissionRequest",
  "PermissionDenied",
  "PostToolUseFailure",
] as const;

/** Whose names a hook sees: rt's, or Claude Code's (tool names, argument names). */
export type HookDialect = "rt" | "claude";

export interface HookCommand {
  command: string;
  timeout: number;
}

export interface HookGroup {
  matcher?: string;
  hooks: HookCommand[];
  dialect: HookDialect;
  /** The file it was read from, for messages. */
  source: string;
}

export type HookConfig = Partial<Record<HookEvent, HookGroup[]>>;

export interface HookProblem {
  /** The file. */
  source?: string;
  where: string;
  message: string;
}

export interface HookSource {
  /** The file, as messages name it. */
  source: string;
  /** A Claude Code settings file: every hook of it sees Claude Code's names. */
  claude?: boolean;
}

/** A matcher that names Claude Code's tools (Bash, Edit|Write) and none of rt's: a hook written for Claude Code. */
function claudeMatcher(matcher: string | undefined): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return false;
  const fits = (name: string) => matches(matcher, name);
  return namesClaudeTool(fits) && !RT_TOOLS_WITH_CLAUDE_NAMES.some(fits);
}

/** The hooks of a configuration's `hooks` value, and what was wrong in it (an unknown event, a group without commands...). */
export function parseHooks(
  value: unknown,
  from: HookSource = { source: "rt's configuration" },
): { config: HookConfig; problems: HookProblem[] } {
  const config: HookConfig = {};
  const problems: HookProblem[] = [];
  if (value === undefined) return { config, problems };
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { config, problems: [{ source: from.source, where: "hooks", message: "must be an object of events" }] };
  for (const [event, groups] of Object.entries(value as Record<string, unknown>)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      const known = (EVENTS_NOT_RUN as readonly string[]).includes(event);
      problems.push({
        source: from.source,
        where: `hooks.${event}`,
        message: `${known ? "an event rt does not run" : "unknown event"}; rt runs ${HOOK_EVENTS.join(", ")}`,
      });
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push({ source: from.source, where: `hooks.${event}`, message: "must be a list of {matcher, hooks}" });
      continue;
    }
    const out: HookGroup[] = [];
    groups.forEach((g, i) => {
      const where = `hooks.${event}.${i}`;
      const group = g as { matcher?: unknown; hooks?: unknown };
      if (typeof g !== "object" || g === null || !Array.isArray(group.hooks)) {
        problems.push({
          source: from.source,
          where,
          message: 'must be {matcher, hooks: [{type: "command", command}]}',
        });
        return;
      }
      if (group.matcher !== undefined && typeof group.matcher !== "string") {
        problems.push({
          source: from.source,
          where: `${where}.matcher`,
          message: "must be a string (a tool name, a regular expression, or * for every tool)",
        });
        return;
      }
      if (typeof group.matcher === "string" && group.matcher !== "*" && !matcherRegex(group.matcher)) {
        problems.push({
          source: from.source,
          where: `${where}.matcher`,
          message: `not a valid regular expression: ${group.matcher}`,
        });
        return;
      }
      const hooks: HookCommand[] = [];
      group.hooks.forEach((h, j) => {
        const hook = h as { type?: unknown; command?: unknown; timeout?: unknown };
        if (hook?.type !== "command" || typeof hook.command !== "string" || hook.command.trim() === "") {
          problems.push({
            source: from.source,
            where: `${where}.hooks.${j}`,
            message: 'must be {"type": "command", "command": "..."} (rt runs command hooks)',
          });
          return;
        }
        const timeout =
          typeof hook.timeout === "number" && hook.timeout > 0
            ? Math.min(hook.timeout, HOOK_TIMEOUT_MAX_S)
            : HOOK_DEFAULT_TIMEOUT_S;
        hooks.push({ command: hook.command, timeout });
      });
      const matcher = typeof group.matcher === "string" ? group.matcher : undefined;
      const dialect: HookDialect = from.claude || claudeMatcher(matcher) ? "claude" : "rt";
      if (hooks.length)
        out.push({ ...(matcher !== undefined ? { matcher } : {}), hooks, dialect, source: from.source });
    });
    if (out.length) config[event as HookEvent] = out;
  }
  return { config, problems };
}

function matcherRegex(matcher: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${matcher})$`);
  } catch {
    return undefined;
  }
}

/** Whether a group applies: no matcher, "" or "*" match everything; otherwise the whole name must match (a plain name, or a regex such as "edit|write" or "mcp__.*"). */
export function matches(matcher: string | undefined, target: string | undefined): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (target === undefined) return false;
  return matcherRegex(matcher)?.test(target) ?? false;
}

/** What the hooks of one event decided, all of them together. */
export interface HookOutcome {
  /** A hook blocked: the reason (exit 2's stderr, or decision "block" / permissionDecision "deny" with its reason). */
  block?: string;
  /** permissionDecision "allow": no approval question. */
  allow?: boolean;
  /** PreToolUse: the arguments to use instead (the last hook's that gave some). */
  updatedInput?: Record<string, unknown>;
  /** Text for the model (additionalContext, or plain stdout for UserPromptSubmit and SessionStart). */
  context: string[];
  /** continue: false: stop the turn, with this reason. */
  stop?: string;
  /** For the user: the hooks' systemMessages. */
  notices: string[];
  /** For the user, on stderr in every output mode: failures (an exit code, a timeout, output not in the contract). */
  warnings: string[];
  /** How many hook commands ran. */
  ran: number;
}

export interface HookRunOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** The tool call a PreToolUse or PostToolUse hook is about, in rt's names. */
export interface HookedTool {
  name: string;
  input: unknown;
  response?: unknown;
}

export class Hooks {
  readonly config: HookConfig = {};

  /** The hooks of several sources together: every matching hook of every source runs, as Claude Code runs them. */
  constructor(
    configs: HookConfig | HookConfig[],
    readonly problems: HookProblem[] = [],
  ) {
    for (const c of Array.isArray(configs) ? configs : [configs])
      for (const event of HOOK_EVENTS) if (c[event]?.length) (this.config[event] ??= []).push(...c[event]);
  }

  has(event: HookEvent): boolean {
    return (this.config[event]?.length ?? 0) > 0;
  }

  /**
   * Runs every hook of `event` whose matcher fits, in parallel: `target` (a
   * compaction trigger, a session source) or, for a tool event, the tool's
   * name in the hook's dialect, whose input then carries tool_name, tool_input
   * (and tool_response) in that dialect too.
   */
  async run(
    event: HookEvent,
    input: Record<string, unknown>,
    target: string | undefined,
    opts: HookRunOptions,
    tool?: HookedTool,
  ): Promise<HookOutcome> {
    const outcome: HookOutcome = { context: [], notices: [], warnings: [], ran: 0 };
    const targetOf = (g: HookGroup) =>
      tool ? (g.dialect === "claude" ? claudeToolName(tool.name) : tool.name) : target;
    const groups = (this.config[event] ?? []).filter((g) => matches(g.matcher, targetOf(g)));
    const runs = groups.flatMap((g) => g.hooks.map((hook) => ({ hook, dialect: g.dialect })));
    if (!runs.length) return outcome;
    const payloads = new Map<HookDialect, string>();
    const payloadOf = (dialect: HookDialect) => {
      let p = payloads.get(dialect);
      if (p === undefined) {
        const fields = toolFields(tool, dialect, opts.root);
        p = `${JSON.stringify({ ...input, ...fields, hook_event_name: event, cwd: opts.root })}\n`;
        payloads.set(dialect, p);
      }
      return p;
    };
    const results = await Promise.all(runs.map((r) => runHook(r.hook, payloadOf(r.dialect), opts)));
    outcome.ran = results.length;
    results.forEach((r, i) => apply(event, runs[i].hook, r, outcome, (updated) => rtInput(updated, runs[i].dialect)));
    return outcome;

    function rtInput(updated: Record<string, unknown>, dialect: HookDialect): Record<string, unknown> {
      return dialect === "claude" && tool ? fromClaudeInput(tool.name, updated, opts.root) : updated;
    }
  }
}

/** tool_name, tool_input and tool_response as a hook of this dialect reads them. */
function toolFields(tool: HookedTool | undefined, dialect: HookDialect, root: string): Record<string, unknown> {
  if (!tool) return {};
  if (dialect === "rt")
    return {
      tool_name: tool.name,
      tool_input: tool.input,
      ...(tool.response !== undefined ? { tool_response: tool.response } : {}),
    };
  const input = toClaudeInput(tool.name, tool.input, root);
  const filePath =
    typeof input === "object" && input !== null ? (input as { file_path?: unknown }).file_path : undefined;
  const response =
    typeof tool.response === "object" && tool.response !== null && typeof filePath === "string"
      ? { ...tool.response, filePath }
      : tool.response;
  return {
    tool_name: claudeToolName(tool.name),
    tool_input: input,
    ...(response !== undefined ? { tool_response: response } : {}),
  };
}

interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  spawnError?: string;
}

function runHook(hook: HookCommand, payload: string, opts: HookRunOptions): Promise<HookRun> {
  let stdout = "";
  let stderr = "";
  const run = startCommand({
    command: hook.command,
    cwd: opts.root,
    env: { ...opts.env, CLAUDE_PROJECT_DIR: opts.root, RT_PROJECT_DIR: opts.root },
    stdin: payload,
    timeoutMs: hook.timeout * 1000,
    ...(opts.signal ? { signal: opts.signal } : {}),
    onData: (stream, chunk) => {
      if (stream === "stdout" && stdout.length < HOOK_OUTPUT_MAX_BYTES) stdout += chunk.toString("utf8");
      if (stream === "stderr" && stderr.length < HOOK_OUTPUT_MAX_BYTES) stderr += chunk.toString("utf8");
    },
  });
  return run.done.then((exit) => ({
    exitCode: exit.exitCode,
    stdout,
    stderr,
    timedOut: exit.timedOut,
    ...(exit.spawnError ? { spawnError: exit.spawnError } : {}),
  }));
}

const short = (s: string) => {
  const t = s.trim();
  return t.length > 500 ? `${t.slice(0, 500)}…` : t;
};

/** What bash's exit codes for a command it could not run mean. */
const EXIT_MEANING: Readonly<Record<number, string>> = {
  126: "not executable (chmod +x it, or run it with its interpreter)",
  127: "command not found",
};

function apply(
  event: HookEvent,
  hook: HookCommand,
  r: HookRun,
  out: HookOutcome,
  rtInput: (updated: Record<string, unknown>) => Record<string, unknown>,
): void {
  const name = `${event} hook \`${hook.command.length > 80 ? `${hook.command.slice(0, 80)}…` : hook.command}\``;
  if (r.timedOut) {
    out.warnings.push(`${name} timed out after ${hook.timeout} s and was killed; it did not decide anything`);
    return;
  }
  if (r.spawnError) {
    out.warnings.push(`${name} could not start: ${r.spawnError}`);
    return;
  }
  if (r.exitCode === 2) {
    out.block = [out.block, short(r.stderr) || `blocked by ${name}`].filter(Boolean).join("\n");
    return;
  }
  if (r.exitCode !== 0) {
    const meaning =
      r.exitCode !== null && Object.hasOwn(EXIT_MEANING, r.exitCode) ? `, ${EXIT_MEANING[r.exitCode]}` : "";
    out.warnings.push(
      `${name} failed (exit code ${r.exitCode ?? "none"}${meaning})` +
        `${r.stderr.trim() ? `: ${short(r.stderr)}` : ""}; it did not decide anything`,
    );
    return;
  }
  const text = r.stdout.trim();
  if (!text.startsWith("{")) {
    if (text && (event === "UserPromptSubmit" || event === "SessionStart")) out.context.push(text);
    return;
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    out.warnings.push(`${name} printed output that is not valid JSON (${(e as Error).message}); it was ignored`);
    return;
  }
  if (typeof json.systemMessage === "string") out.notices.push(json.systemMessage);
  if (json.continue === false) out.stop = typeof json.stopReason === "string" ? json.stopReason : `stopped by ${name}`;
  const reason = typeof json.reason === "string" ? json.reason : undefined;
  if (json.decision === "block") out.block = [out.block, reason ?? `blocked by ${name}`].filter(Boolean).join("\n");
  const specific = (json.hookSpecificOutput ?? {}) as Record<string, unknown>;
  if (typeof specific.additionalContext === "string" && specific.additionalContext)
    out.context.push(specific.additionalContext);
  if (event === "PreToolUse") {
    const decision = specific.permissionDecision ?? (json.decision === "approve" ? "allow" : undefined);
    const why = typeof specific.permissionDecisionReason === "string" ? specific.permissionDecisionReason : reason;
    if (decision === "deny") out.block = [out.block, why ?? `denied by ${name}`].filter(Boolean).join("\n");
    if (decision === "allow") out.allow = true;
    const updated = specific.updatedInput;
    if (updated !== undefined) {
      if (typeof updated === "object" && updated !== null && !Array.isArray(updated))
        out.updatedInput = rtInput(updated as Record<string, unknown>);
      else out.warnings.push(`${name}: hookSpecificOutput.updatedInput must be an object of arguments; it was ignored`);
    }
  }
}
