// `!COMMAND` at the prompt (the TUI and the line REPL; Claude Code's habit):
// the user's own shell command, run at once through rt's `bash` tool, so the
// profile, the structural check and the sandbox apply as to any command, with
// the session's workspace (plan mode's is the read-only one: the command runs
// in the read-only sandbox). Typing it is the user's approval, so nobody is
// asked, except that the approval mode "never" runs no command at all. Its
// result goes into the conversation as a user message (origin
// "user_command"), so the model sees it with the next prompt, and the working
// tree is checkpointed around it as around a prompt (it is a rewind point).
import type { AgentEvent } from "./events.js";
import type { LoopContext } from "./loopContext.js";
import { fitToolOutput } from "./outputSaving.js";
import { callTool } from "../tools/policy.js";

const HEADER =
  "[rt] The user ran this shell command themselves at rt's prompt (! mode); its command and result follow, as context for you (not a request):";
const OPEN = "<command>";
const CLOSE = "</command>";

/** The message that carries a user's command and its result (as a tool result reads: "error: ..." when it failed). */
export function userCommandMessage(command: string, result: string): string {
  return `${HEADER}\n${OPEN}\n${command}\n${CLOSE}\n${result}`;
}

/** The command, its result and whether it succeeded, from such a message; undefined for any other text. */
export function parseUserCommandMessage(
  content: string,
): { command: string; output: string; success: boolean } | undefined {
  const head = `${HEADER}\n${OPEN}\n`;
  if (!content.startsWith(head)) return undefined;
  const end = content.indexOf(`\n${CLOSE}\n`, head.length - 1);
  if (end < 0) return undefined;
  const command = content.slice(head.length, end);
  const output = content.slice(end + CLOSE.length + 2);
  return { command, output, success: !output.startsWith("error: ") };
}

/**
 * Runs the user's command; yields tool_start and tool_end (or tool_blocked
 * when the approval mode runs no command) for the face to draw. Not logged as
 * events: the message in the history is the record (the transcript of a
 * resumed session is rebuilt from it).
 */
export async function* runUserCommand(
  ctx: LoopContext,
  command: string,
  signal?: AbortSignal,
): AsyncGenerator<AgentEvent> {
  const at = ctx.history.log.messageCount;
  const id = `user-command-${at}`;
  const args = { command };
  if (ctx.approvals.mode === "never") {
    yield {
      type: "tool_blocked",
      id,
      name: "bash",
      args,
      reason: 'the approval mode is "never": no command runs (/approval ask, or Shift+Tab, to run it)',
    };
    return;
  }
  const checkpointing = ctx.checkpoint !== undefined && ctx.approvals.mode !== "plan";
  if (checkpointing) {
    const failed = ctx.checkpoint!("before", at);
    if (failed) yield { type: "notice", message: failed };
  }
  yield { type: "tool_start", id, name: "bash", args, protocol: "tools" };
  const started = performance.timeOrigin + performance.now();
  const r = await callTool(ctx.workspace, "bash", args, signal ? { signal } : {});
  const full = r.success
    ? r.output === ""
      ? "(no output)"
      : r.output
    : `error: ${r.error ?? "failed"}${r.output ? `\n${r.output}` : ""}`;
  const { text, saved } = fitToolOutput(ctx.workspace, full, ctx.limits.toolOutputMaxChars, {
    sessionId: ctx.history.log.id,
    callId: id,
  });
  ctx.history.add({ role: "user", content: userCommandMessage(command, text) }, "user_command");
  if (checkpointing) ctx.checkpoint!("after", at);
  yield {
    type: "tool_end",
    id,
    name: "bash",
    success: r.success,
    output: text,
    ...(r.success ? {} : { error: r.error ?? "failed" }),
    ...(saved ? { saved_output: saved } : {}),
    started_at: started,
    ended_at: performance.timeOrigin + performance.now(),
  };
}
