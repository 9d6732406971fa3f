// `rt run "prompt"` (also `rt -p "prompt"`): one turn, then exit.
//   --output-format text         the final answer on stdout (progress on stderr when it is a terminal)
//   --output-format json         one JSON object at the end: result, is_error, finish_reason, session id, usage, cost
//   --output-format stream-json  every agent event as a JSON line, as it happens
// Exit 0 when the turn completed, 1 when it ended in an error, 2 for usage
// errors and when the model server cannot be reached (with how to configure one).
import type { Workspace } from "../workspace/workspace.js";
import type { AgentEvent, AgentStreamEvent } from "../agent/events.js";
import { setupAgent, SetupError, type Flags } from "./agentSetup.js";
import { describeEvent, describeStreamEvent, isWarning, ansi, plain, transcriptText } from "./render.js";
import { LINE_RESUME_PROMPTS } from "../base/limits.js";
import { LineReader, askApproval } from "./lineReader.js";
import { askQuestionsOnLines } from "./lineDialogs.js";
import type { Io } from "./io.js";

export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Exit code for a turn's last event: setup problems (nothing listening, bad key, unknown model) are 2. */
export function exitCodeFor(last: AgentEvent | undefined): number {
  if (last?.type === "turn_complete") return 0;
  if (last?.type === "error" && last.kind === "unreachable") return 2;
  return 1;
}

export async function runCommand(
  ws: Workspace,
  positionals: string[],
  flags: Flags,
  io: Io,
  readStdin: () => Promise<string | null>,
): Promise<number> {
  const format = (flags["output-format"] ?? "text") as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) {
    io.stderr(`rt run: --output-format must be one of ${OUTPUT_FORMATS.join(", ")}, not "${String(format)}"\n`);
    return 2;
  }
  let prompt = positionals.join(" ");
  // `echo "..." | rt run` and `rt run < prompt.txt` read the prompt from standard input.
  if (prompt.trim() === "") prompt = (await readStdin())?.trim() ?? "";
  if (prompt.trim() === "") {
    io.stderr(
      `rt run: missing prompt\nUsage: rt run "PROMPT" [--model provider/model] [--output-format text|json|stream-json]\n`,
    );
    return 2;
  }

  // Approvals can be asked only when there is a terminal to ask on.
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const reader = interactive ? new LineReader(process.stdin, process.stderr) : undefined;
  const progress = process.stderr.isTTY === true && format === "text";
  const style = process.stderr.isTTY ? ansi : plain;

  let setup;
  try {
    // On a terminal the user can answer approvals and ask_user's questions; a plan (exit_plan_mode) is the answer of the run.
    setup = await setupAgent(
      ws,
      flags,
      reader ? { approve: askApproval(reader, io.stderr), askUser: askQuestionsOnLines(reader, io.stderr) } : {},
    );
  } catch (e) {
    reader?.close();
    if (e instanceof SetupError) {
      io.stderr(`rt run: ${e.message}\n`);
      // A program reading --output-format json (or stream-json) gets the failure in its own format too.
      if (format !== "text") {
        const kind = /^cannot reach a model/.test(e.message) ? "unreachable" : "setup";
        const error = { kind, message: e.message };
        io.stdout(
          `${JSON.stringify(format === "json" ? { type: "result", is_error: true, result: "", error, exit_code: e.exitCode } : { type: "error", ...error })}\n`,
        );
      }
      return e.exitCode;
    }
    throw e;
  }
  const { agent } = setup;
  // `rt run /NAME args`, `/mcp__SERVER__PROMPT args`, `@server:uri`: the prompt they make (promptLine.ts).
  // `rt run /review src/parser.py "error handling"`: the shell already split the words ($2 is "error handling").
  const words = positionals.length > 1 && positionals[0].startsWith("/") ? positionals.slice(1) : undefined;
  const { loadCustomCommands } = await import("../extensions/slashCommands.js");
  const loaded = prompt.trim().startsWith("/") ? await loadCustomCommands(ws) : undefined;
  const { promptForLine } = await import("./promptLine.js");
  const line = await promptForLine(agent, prompt, loaded?.commands ?? [], words ? { words } : {});
  if (line.kind !== "prompt") {
    reader?.close();
    agent.close();
    const name = prompt.trim().split(/\s+/)[0];
    io.stderr(
      line.kind === "error"
        ? `rt run: ${line.message}\n`
        : `rt run: no custom command ${name}; commands: ${loaded?.commands.map((c) => `/${c.name}`).join(", ") || "none"} (.rt/commands, .claude/commands${loaded?.untrustedProjectDirs.length ? " — not read: the folder is not trusted" : ""}, ~/.config/rt/commands, ~/.claude/commands)\n`,
    );
    return 2;
  }
  for (const p of line.problems) io.stderr(describeEvent({ type: "notice", message: p, level: "warning" }, style));
  prompt = line.prompt;
  const allowedTools = line.allowedTools;

  // A resumed session on a terminal: its last prompts, with their tool calls, before the new one runs.
  if (progress && setup.resumed) io.stderr(transcriptText(agent.transcript(LINE_RESUME_PROMPTS), style, true));

  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130); // a second Ctrl-C: stop now
    controller.abort();
    if (reader?.cancelPending()) io.stderr("\n"); // an approval question being asked: it ends unanswered
  };
  process.on("SIGINT", onSigint);
  reader?.rl.on("SIGINT", onSigint); // on a terminal, readline turns Ctrl-C into this event instead
  let last: AgentEvent | undefined;
  try {
    for await (const ev of agent.run(prompt, {
      signal: controller.signal,
      ...(allowedTools ? { allowedTools } : {}),
    })) {
      // A subagent's events come with parent_tool_use_id: the run's result is the main agent's last event.
      if ((ev as AgentStreamEvent).parent_tool_use_id === undefined) last = ev;
      if (format === "stream-json") io.stdout(`${JSON.stringify(ev)}\n`);
      if (
        progress &&
        ((ev.type !== "turn_complete" && ev.type !== "error") ||
          (ev as AgentStreamEvent).parent_tool_use_id !== undefined)
      ) {
        // Above a question waiting on the terminal (a parallel call's lines), never onto its prompt line.
        const line = describeStreamEvent(ev, style);
        if (line && reader) reader.writeAbove(() => io.stderr(line));
        else if (line) io.stderr(line);
      }
      // A failed hook is never silent: without progress lines (a pipe, json, stream-json) it is said on stderr still.
      else if (isWarning(ev)) io.stderr(describeStreamEvent(ev, style));
    }
  } finally {
    process.off("SIGINT", onSigint);
    reader?.close();
    agent.close();
  }

  if (format === "json") {
    const usage = agent.usage;
    io.stdout(
      `${JSON.stringify({
        type: "result",
        is_error: last?.type !== "turn_complete",
        // A cut answer (length, refusal, content_filter) is an error whose partial text is still the result.
        result: last?.type === "turn_complete" ? last.text : last?.type === "error" ? (last.text ?? "") : "",
        ...(last && (last.type === "turn_complete" || last.type === "error") && last.finish_reason
          ? { finish_reason: last.finish_reason }
          : {}),
        ...(last?.type === "error" ? { error: { kind: last.kind, message: last.message } } : {}),
        session_id: agent.sessionId,
        model: agent.currentModel,
        protocol: agent.currentProtocol,
        model_turns: last?.type === "turn_complete" ? last.model_turns : undefined,
        usage: last && (last.type === "turn_complete" || last.type === "error") ? last.usage : undefined,
        session_usage: usage.usage,
        ...(last?.type === "turn_complete" && last.cost !== undefined ? { cost: last.cost } : {}),
        ...(usage.cost !== undefined ? { session_cost: usage.cost } : {}),
      })}\n`,
    );
  } else if (format === "text") {
    if (last?.type === "turn_complete") {
      io.stdout(last.text.endsWith("\n") || last.text === "" ? last.text : `${last.text}\n`);
      if (progress) io.stderr(describeEvent(last, style));
    } else if (last?.type === "error" && last.text) {
      // The partial answer of a cut turn is still the answer: stdout; why it is partial goes to stderr below.
      io.stdout(last.text.endsWith("\n") ? last.text : `${last.text}\n`);
    }
  }
  if (last?.type === "error" && format !== "stream-json") io.stderr(describeEvent(last, style));
  if (last === undefined) io.stderr("rt run: the agent ended without a result\n");
  return exitCodeFor(last);
}
