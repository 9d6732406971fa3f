// `rt chat`: a line-based REPL over the agent's event stream. The answer
// streams as it is written; tool calls show as one line each; approvals are
// asked inline. Ctrl-C interrupts the current turn (the session keeps what was
// done) or, at the prompt, clears the line; Ctrl-D quits. An answer cut short
// (output limit, refusal, content filter) stays on screen as it streamed,
// followed by one red line saying why (`rt: length: ...`); the REPL goes on,
// and the model sees its partial answer, marked, with the next prompt.
//   /compact [instructions]  summarize the conversation now
//   /clear                   start from an empty context (the log keeps everything)
//   /model [provider/model]  show or switch the model
//   /sessions                list this project's sessions
//   /help, /exit
import { describeCommands, loadCustomCommands } from "../extensions/slashCommands.js";
import { promptForLine, type PromptLine } from "./promptLine.js";
import type { Workspace } from "../workspace/workspace.js";
import type { AgentEvent, AgentStreamEvent } from "../agent/events.js";
import { listSessions } from "../agent/session.js";
import { priceFor } from "../agent/settings.js";
import { setupAgent, modelChoice, SetupError, type Flags } from "./agentSetup.js";
import { resolveModel } from "./resolveModel.js";
import { describeEvent, describeStreamEvent, isWarning, ansi, plain, transcriptText, type Style } from "./render.js";
import { LINE_RESUME_PROMPTS } from "../base/limits.js";
import { memoryTarget } from "../agent/memory.js";
import { LineReader, askApproval } from "./lineReader.js";
import { askQuestionsOnLines, reviewPlanOnLines } from "./lineDialogs.js";
import { formatSessionList } from "./sessionList.js";
import type { Io } from "./io.js";

const HELP = `Commands:
  /compact [instructions]  summarize the conversation now (instructions guide the summary)
  /clear                   start again from an empty context (the session log keeps everything)
  /model [provider/model]  show the model, or switch to another one
  /sessions                list this project's sessions
  /todos                   show the todo list
  !COMMAND                 run COMMAND now (the bash tool; the approval mode's sandbox applies);
                           its output joins the conversation for your next prompt
  #NOTE                    remember NOTE in the project's AGENTS.md or your ~/.config/rt/AGENTS.md
  /agents                  list the subagent types the agent can start
  /help                    this help
  /exit                    quit (or Ctrl-D)
Ctrl-C interrupts the model or a running command; the session continues.
`;

export async function chatCommand(ws: Workspace, flags: Flags, io: Io): Promise<number> {
  // On a terminal, the full-screen UI; --plain, input or output not a terminal, or a
  // terminal that cannot move its cursor (TERM=dumb, as Emacs' shell buffers): this REPL.
  if (flags.plain !== true && process.stdin.isTTY && process.stdout.isTTY && ws.env.TERM !== "dumb") {
    const { tuiCommand } = await import("./tui/tui.js");
    return tuiCommand(ws, flags, io);
  }
  const reader = new LineReader(process.stdin, process.stdout);
  const style: Style = process.stdout.isTTY ? ansi : plain;
  let setup;
  try {
    setup = await setupAgent(ws, flags, {
      approve: askApproval(reader, io.stdout),
      askUser: askQuestionsOnLines(reader, io.stdout),
      reviewPlan: reviewPlanOnLines(reader, io.stdout),
    });
  } catch (e) {
    reader.close();
    if (e instanceof SetupError) {
      io.stderr(`rt chat: ${e.message}\n`);
      return e.exitCode;
    }
    throw e;
  }
  const { agent, settings } = setup;
  io.stdout(
    style.dim(
      `rt chat · ${agent.currentModel} · session ${agent.sessionId}${setup.resumed ? " (continued)" : ""} · ${ws.root}\n/help for commands, Ctrl-C interrupts, Ctrl-D quits\n`,
    ),
  );

  // A resumed session: its last prompts, with their tool calls and answers, as they were shown.
  if (setup.resumed)
    io.stdout(transcriptText(agent.transcript(LINE_RESUME_PROMPTS), style, process.stdout.isTTY === true));

  let current: AbortController | undefined;
  const interrupt = () => {
    if (current) {
      current.abort();
      reader.cancelPending(); // an approval question being asked: it ends unanswered
      io.stdout(style.dim("\n^C interrupting…\n"));
    } else if (reader.terminal) {
      // At the prompt: drop the line being typed, like a shell.
      reader.rl.write(null, { ctrl: true, name: "u" });
      io.stdout("\n");
      reader.rl.prompt();
    }
  };
  reader.rl.on("SIGINT", interrupt); // a terminal: readline turns Ctrl-C into this event
  process.on("SIGINT", interrupt); // piped input: a real signal

  /** Streams one turn's (or compaction's) events to the screen. */
  const show = async (events: AsyncGenerator<AgentEvent>) => {
    let midLine = false;
    let inReasoning = false;
    for await (const ev of events as AsyncGenerator<AgentStreamEvent>) {
      // A subagent's events: its tool calls nested under the task call, its text not (its report is the call's result).
      const nested = ev.parent_tool_use_id !== undefined;
      if (ev.type === "text" && !nested) {
        if (inReasoning) {
          io.stdout("\n");
          inReasoning = false;
        }
        io.stdout(ev.delta);
        midLine = !ev.delta.endsWith("\n");
        continue;
      }
      if (ev.type === "reasoning" && !nested) {
        if (!process.stdout.isTTY) continue; // thinking is for watching, not for transcripts
        io.stdout(style.dim(ev.delta));
        inReasoning = true;
        midLine = !ev.delta.endsWith("\n");
        continue;
      }
      const line = describeStreamEvent(ev, style);
      if (line === "") continue; // model_turn_end of an answer that simply finished
      const wasMidLine = midLine;
      midLine = false;
      inReasoning = false;
      // Above a question waiting on the terminal (a parallel call's lines), never onto its prompt line;
      // a failed hook goes to standard error, where a transcript on stdout does not hide it.
      reader.writeAbove(() => {
        if (!isWarning(ev)) return io.stdout(wasMidLine ? `\n${line}` : line);
        if (wasMidLine) io.stdout("\n");
        io.stderr(line);
      });
    }
    if (midLine) io.stdout("\n");
  };

  const run = async (events: AsyncGenerator<AgentEvent>, controller: AbortController) => {
    current = controller;
    try {
      await show(events);
    } finally {
      current = undefined;
    }
  };

  // A line made into a prompt (promptLine.ts): its problems said on stderr, then its turn.
  const sendLine = async (line: Extract<PromptLine, { kind: "prompt" }>, controller: AbortController) => {
    for (const p of line.problems)
      io.stderr(describeStreamEvent({ type: "notice", message: p, level: "warning" }, style));
    const allowed = line.allowedTools ? { allowedTools: line.allowedTools } : {};
    await run(agent.run(line.prompt, { signal: controller.signal, ...allowed }), controller);
  };

  const customCommands = await loadCustomCommands(ws);
  try {
    for (;;) {
      const line = await reader.next("> ");
      if (line === null) break;
      const input = line.trim();
      if (input === "") continue;
      if (input.startsWith("#")) {
        // `#NOTE`: remembered in the project's or the user's memory file, as the user says.
        const note = input.slice(1).trim();
        if (note === "") {
          io.stdout("#NOTE remembers NOTE in the project's AGENTS.md or your own\n");
          continue;
        }
        const where = await reader.next(
          `Remember in [p]roject memory (${memoryTarget(ws, "project").shown}) or [u]ser memory (${memoryTarget(ws, "user").shown})? [p/u, anything else: no] `,
        );
        const scope = /^p(roject)?$/i.test(where?.trim() ?? "")
          ? "project"
          : /^u(ser)?$/i.test(where?.trim() ?? "")
            ? "user"
            : undefined;
        if (!scope) io.stdout(style.dim("[rt] not remembered\n"));
        else {
          try {
            io.stdout(style.dim(`[rt] remembered in ${agent.remember(scope, note).file}\n`));
          } catch (e) {
            io.stdout(style.red(`rt: ${(e as Error).message}\n`));
          }
        }
        continue;
      }
      if (input.startsWith("!")) {
        // `!COMMAND`: the user's own command, run now; its output joins the conversation for the next prompt.
        const command = input.slice(1).trim();
        if (command === "") io.stdout("!COMMAND runs COMMAND now and adds its output to the conversation\n");
        else {
          const c = new AbortController();
          current = c;
          try {
            for await (const ev of agent.runUserCommand(command, { signal: c.signal })) {
              if (ev.type === "tool_end") io.stdout(ev.output.endsWith("\n") ? ev.output : `${ev.output}\n`);
              else io.stdout(describeEvent(ev, style));
            }
          } finally {
            current = undefined;
          }
        }
        continue;
      }
      if (input.startsWith("/")) {
        const [cmd, ...rest] = input.split(/\s+/);
        const arg = input.slice(cmd.length).trim();
        if (cmd === "/exit" || cmd === "/quit") break;
        if (cmd === "/help")
          io.stdout(
            customCommands.commands.length
              ? `${HELP}Custom commands:\n${describeCommands(customCommands.commands)}\n`
              : HELP,
          );
        else if (cmd === "/clear") {
          agent.clear();
          io.stdout(style.dim("[rt] context cleared; the session log keeps the history\n"));
        } else if (cmd === "/compact") {
          const c = new AbortController();
          await run(agent.compact(arg || undefined, { signal: c.signal }), c);
        } else if (cmd === "/todos") {
          io.stdout(
            agent.todos.length ? describeStreamEvent({ type: "todos", todos: [...agent.todos] }, style) : "no todos\n",
          );
        } else if (cmd === "/agents") {
          const { listAgents } = await import("./agentList.js");
          await listAgents(ws, false, io);
        } else if (cmd === "/sessions") {
          io.stdout(formatSessionList(listSessions(ws), agent.sessionId));
        } else if (cmd === "/model") {
          if (rest.length === 0) io.stdout(`${agent.currentModel} (protocol: ${agent.currentProtocol})\n`);
          else {
            try {
              const r = await resolveModel(ws, modelChoice(flags, arg));
              agent.setModel(r.provider, r.model, r.label, priceFor(settings.prices, r.label), settings.contextWindow);
              io.stdout(style.dim(`[rt] model: ${r.label}\n`));
            } catch (e) {
              io.stdout(style.red(`rt: ${(e as Error).message}\n`));
            }
          }
        } else {
          // Custom slash commands (.rt/commands, .claude/commands and the user's directories) and MCP prompts.
          const c = new AbortController();
          const made = await promptForLine(agent, input, customCommands.commands, { signal: c.signal });
          if (made.kind === "unknown") io.stdout(`unknown command ${cmd}; /help lists them\n`);
          else if (made.kind === "error") io.stderr(style.red(`rt: ${made.message}\n`));
          else await sendLine(made, c);
        }
        continue;
      }
      const c = new AbortController();
      const made = await promptForLine(agent, input, [], { signal: c.signal });
      if (made.kind === "prompt") await sendLine(made, c);
    }
  } catch (e) {
    if (!(e instanceof SetupError)) throw e;
    io.stderr(`rt chat: ${e.message}\n`);
    return e.exitCode;
  } finally {
    process.off("SIGINT", interrupt);
    reader.close();
    agent.close();
  }
  io.stdout(style.dim(`\nsession ${agent.sessionId} saved; rt chat --continue resumes it\n`));
  return 0;
}
