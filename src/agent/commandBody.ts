// A custom slash command's prompt made ready to send, as Claude Code makes it
// (its arguments already in place, slashCommands.ts):
//
//   !`git diff --stat`   runs the command before the prompt is sent; its output
//                        stands where the command was. It runs as the bash tool
//                        does (the policy, the profile, the sandbox), without a
//                        question when the command's allowed-tools permit it
//                        (`Bash`, or `Bash(git diff:*)` for a plain command that
//                        starts with `git diff`, `Bash(git status)` for exactly
//                        that command); otherwise the approval mode decides: a
//                        terminal asks, `never` or no terminal refuses, and the
//                        whole command is refused, nothing sent.
//   @src/parser.py       the file's text is attached (a file of the workspace,
//                        text, at most SLASH_COMMAND_FILE_MAX_BYTES); a word
//                        that names no such file is left as it is written
//                        (`@alice` in a prompt is no file).
import type { LoopContext } from "./loopContext.js";
import type { ResolvedCommand } from "../extensions/slashCommands.js";
import { prepareCall, runPreparedCall } from "../tools/policy.js";
import { describeCall } from "./approval.js";
import { SLASH_COMMAND_FILE_MAX_BYTES, SLASH_COMMAND_OUTPUT_MAX_CHARS } from "../base/limits.js";

export type CommandExpansion = { prompt: string } | { error: string };

/** `!` then a command in backquotes, on one line. */
const BANG = /!`([^`\n]+)`/g;
/** `@` at the start or after a space or an opening bracket, then a path. */
const MENTION = /(^|[\s([{])@([^\s`'"()[\]{}<>]+)/g;
/** What a plain command cannot hold: an allowed-tools pattern permits no chain, substitution or redirection. */
const NOT_PLAIN = /[;&|<>`$(){}\n\\]/;

/** Whether the command's allowed-tools let `command` run without a question. */
export function bashPermitted(command: string, resolved: Pick<ResolvedCommand, "command" | "allowedTools">): boolean {
  if (resolved.allowedTools.includes("bash")) return true;
  const cmd = command.trim();
  if (NOT_PLAIN.test(cmd)) return false;
  for (const entry of resolved.command.ignoredAllowedTools) {
    const m = /^Bash\((.*)\)$/.exec(entry.trim());
    if (!m) continue;
    const rule = m[1].trim();
    if (rule.endsWith(":*")) {
      const prefix = rule.slice(0, -2).trim();
      if (cmd === prefix || cmd.startsWith(`${prefix} `)) return true;
    } else if (cmd === rule) return true;
  }
  return false;
}

function cut(text: string): string {
  return text.length > SLASH_COMMAND_OUTPUT_MAX_CHARS
    ? `${text.slice(0, SLASH_COMMAND_OUTPUT_MAX_CHARS)}\n[… cut at ${SLASH_COMMAND_OUTPUT_MAX_CHARS} characters]`
    : text;
}

/** Runs one `!` command: its output, or why it did not run. */
async function runBang(
  ctx: LoopContext,
  command: string,
  resolved: ResolvedCommand,
  signal: AbortSignal | undefined,
): Promise<{ output: string } | { error: string }> {
  const prepared = prepareCall(ctx.workspace, "bash", { command }, ctx.tools.lookup);
  if (!prepared.ok) return { error: prepared.refusal.error ?? prepared.refusal.output };
  if (!bashPermitted(command, resolved)) {
    const verdict = await ctx.approvals.check(
      prepared.call.tool,
      prepared.call.args,
      describeCall("bash", prepared.call.args),
      signal,
    );
    if (!verdict.ok)
      return {
        error:
          `${verdict.reason} (allowed-tools of /${resolved.command.name} does not permit it: ` +
          `add Bash(${command}) or Bash(${command.trim().split(/\s+/)[0]}:*))`,
      };
  }
  const result = await runPreparedCall(prepared.call, signal ? { signal } : {});
  const meta = result as { stdout?: unknown; stderr?: unknown };
  if (result.success && typeof meta.stdout === "string") {
    const stderr = typeof meta.stderr === "string" && meta.stderr.trim() ? `\n${meta.stderr.trimEnd()}` : "";
    return { output: cut(`${meta.stdout.trimEnd()}${stderr}`) };
  }
  return { output: cut(result.output.trimEnd() || (result.error ?? "")) };
}

/** The command's prompt with its `!` commands run and its `@` files attached, or why it cannot be sent. */
export async function expandCommandBody(
  ctx: LoopContext,
  resolved: ResolvedCommand,
  signal?: AbortSignal,
): Promise<CommandExpansion> {
  let prompt = resolved.prompt;
  const bangs = [...prompt.matchAll(BANG)];
  if (bangs.length) {
    const outputs: string[] = [];
    for (const m of bangs) {
      const r = await runBang(ctx, m[1], resolved, signal);
      if ("error" in r) return { error: `/${resolved.command.name}: !\`${m[1]}\` was not run: ${r.error}` };
      outputs.push(r.output);
    }
    let i = 0;
    prompt = prompt.replace(BANG, () => outputs[i++]);
  }
  const files: string[] = [];
  const seen = new Set<string>();
  prompt = prompt.replace(MENTION, (whole, lead: string, p: string) => {
    const clean = p.replace(/[.,;:!?]+$/, "");
    let text: string;
    let rel: string;
    try {
      const file = ctx.workspace.resolveTextFile(clean);
      rel = file.rel;
      text = ctx.workspace.readBytes(file, SLASH_COMMAND_FILE_MAX_BYTES).toString("utf8");
    } catch {
      return whole;
    }
    if (!seen.has(rel)) {
      seen.add(rel);
      files.push(`<file path="${rel}">\n${text.endsWith("\n") ? text : `${text}\n`}</file>`);
    }
    return `${lead}${clean}${p.slice(clean.length)}`;
  });
  return { prompt: files.length ? `${prompt}\n\n${files.join("\n")}` : prompt };
}
