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
import { startCommand } from "../shell/runner.js";
import { HOOK_DEFAULT_TIMEOUT_S, HOOK_OUTPUT_MAX_BYTES } from "../base/limits.js";

export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SessionStart",
  "PreCompact",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export interface HookCommand {
  command: string;
  timeout: number;
}

export interface HookGroup {
  matcher?: string;
  hooks: HookCommand[];
}

export type HookConfig = Partial<Record<HookEvent, HookGroup[]>>;

export interface HookProblem {
  where: string;
  message: string;
}

/** The hooks of a configuration's `hooks` value, and what was wrong in it (an unknown event, a group without commands...). */
export function parseHooks(value: unknown): { config: HookConfig; problems: HookProblem[] } {
  const config: HookConfig = {};
  const problems: HookProblem[] = [];
  if (value === undefined) return { config, problems };
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { config, problems: [{ where: "hooks", message: "must be an object of events" }] };
  for (const [event, groups] of Object.entries(value as Record<string, unknown>)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push({ where: `hooks.${event}`, message: `unknown event; rt runs ${HOOK_EVENTS.join(", ")}` });
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push({ where: `hooks.${event}`, message: "must be a list of {matcher, hooks}" });
      continue;
    }
    const out: HookGroup[] = [];
    groups.forEach((g, i) => {
      const where = `hooks.${event}.${i}`;
      const group = g as { matcher?: unknown; hooks?: unknown };
      if (typeof g !== "object" || g === null || !Array.isArray(group.hooks)) {
        problems.push({ where, message: 'must be {matcher, hooks: [{type: "command", command}]}' });
        return;
      }
      if (group.matcher !== undefined && typeof group.matcher !== "string") {
        problems.push({
          where: `${where}.matcher`,
          message: "must be a string (a tool name, a regular expression, or * for every tool)",
        });
        return;
      }
      if (typeof group.matcher === "string" && group.matcher !== "*" && !matcherRegex(group.matcher)) {
        problems.push({ where: `${where}.matcher`, message: `not a valid regular expression: ${group.matcher}` });
        return;
      }
      const hooks: HookCommand[] = [];
      group.hooks.forEach((h, j) => {
        const hook = h as { type?: unknown; command?: unknown; timeout?: unknown };
        if (hook?.type !== "command" || typeof hook.command !== "string" || hook.command.trim() === "") {
          problems.push({
            where: `${where}.hooks.${j}`,
            message: 'must be {"type": "command", "command": "..."} (rt runs command hooks)',
          });
          return;
        }
        const timeout =
          typeof hook.timeout === "number" && hook.timeout > 0 ? Math.min(hook.timeout, 600) : HOOK_DEFAULT_TIMEOUT_S;
        hooks.push({ command: hook.command, timeout });
      });
      if (hooks.length) out.push({ ...(typeof group.matcher === "string" ? { matcher: group.matcher } : {}), hooks });
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
  /** For the user: failures (a non-zero exit, a timeout, output that is not the contract) and systemMessages. */
  notices: string[];
  /** How many hook commands ran. */
  ran: number;
}

export interface HookRunOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export class Hooks {
  constructor(
    readonly config: HookConfig,
    readonly problems: HookProblem[] = [],
  ) {}

  has(event: HookEvent): boolean {
    return (this.config[event]?.length ?? 0) > 0;
  }

  /** Runs every hook of `event` whose matcher fits `target` (a tool name, a compaction trigger, a session source), in parallel. */
  async run(
    event: HookEvent,
    input: Record<string, unknown>,
    target: string | undefined,
    opts: HookRunOptions,
  ): Promise<HookOutcome> {
    const outcome: HookOutcome = { context: [], notices: [], ran: 0 };
    const commands = (this.config[event] ?? []).filter((g) => matches(g.matcher, target)).flatMap((g) => g.hooks);
    if (!commands.length) return outcome;
    const payload = `${JSON.stringify({ ...input, hook_event_name: event, cwd: opts.root })}\n`;
    const results = await Promise.all(commands.map((h) => runHook(h, payload, opts)));
    outcome.ran = results.length;
    results.forEach((r, i) => apply(event, commands[i], r, outcome));
    return outcome;
  }
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

function apply(event: HookEvent, hook: HookCommand, r: HookRun, out: HookOutcome): void {
  const name = `${event} hook \`${hook.command.length > 80 ? `${hook.command.slice(0, 80)}…` : hook.command}\``;
  if (r.timedOut) {
    out.notices.push(`${name} timed out after ${hook.timeout} s and was killed; it did not decide anything`);
    return;
  }
  if (r.spawnError) {
    out.notices.push(`${name} could not start: ${r.spawnError}`);
    return;
  }
  if (r.exitCode === 2) {
    out.block = [out.block, short(r.stderr) || `blocked by ${name}`].filter(Boolean).join("\n");
    return;
  }
  if (r.exitCode !== 0) {
    out.notices.push(
      `${name} failed (exit code ${r.exitCode ?? "none"})${r.stderr.trim() ? `: ${short(r.stderr)}` : ""}`,
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
    out.notices.push(`${name} printed output that is not valid JSON (${(e as Error).message}); it was ignored`);
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
        out.updatedInput = updated as Record<string, unknown>;
      else out.notices.push(`${name}: hookSpecificOutput.updatedInput must be an object of arguments; it was ignored`);
    }
  }
}
