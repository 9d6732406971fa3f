// `rt` and `rt chat` on a terminal: the full-screen UI. It takes over the
// screen (the terminal's alternate screen, so the shell's screen comes back as
// it was), draws the conversation with Ink, and restores the terminal however
// it ends: quitting, an error, or a signal.
import { format } from "node:util";
import type { Workspace } from "../../workspace/workspace.js";
import type { Io } from "../io.js";
import { loadCustomCommands } from "../../extensions/slashCommands.js";
import { SetupError, type Flags } from "../agentSetup.js";
import { TuiController } from "./controller.js";
import { palette } from "./palette.js";
import { PromptHistory, promptHistoryFile } from "./promptHistory.js";

/** Alternate screen, mouse reports (button events, SGR encoding) and bracketed paste on; and the reverse. */
const ENTER = "\x1b[?1049h\x1b[?1000h\x1b[?1006h\x1b[?2004h";
const LEAVE = "\x1b[?2004l\x1b[?1006l\x1b[?1000l\x1b[?25h\x1b[?1049l";

export async function tuiCommand(ws: Workspace, flags: Flags, io: Io): Promise<number> {
  const env = ws.env;
  const p = palette(env);
  const customCommands = (await loadCustomCommands(ws)).commands;
  const controller = new TuiController({ ws, flags, customCommands });
  try {
    await controller.start();
  } catch (e) {
    if (e instanceof SetupError) {
      io.stderr(`rt chat: ${e.message}\n`);
      return e.exitCode;
    }
    throw e;
  }
  const [{ loadMarkdown }, { default: wrapAnsi }, { runApp }] = await Promise.all([
    import("./markdown.js"),
    import("wrap-ansi"),
    import("./app.js"),
  ]);
  const markdown = await loadMarkdown(p);
  const wrap = (text: string, width: number) =>
    wrapAnsi(text, Math.max(1, width), { hard: true, trim: false }).split("\n");

  const stdout = process.stdout;
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    stdout.write(LEAVE);
  };
  // Whatever ends the process, the user's terminal comes back.
  const SIGNALS: NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGINT"];
  const CODES: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
  // A signal from outside (the keyboard's Ctrl-C is a key in raw mode, not a signal).
  const onSignal = (sig: NodeJS.Signals) => {
    controller.close();
    // Ink did not unmount: pop kitty's keyboard mode too, should it have been pushed (others ignore this).
    stdout.write("\x1b[<u");
    restore();
    process.exit(CODES[sig] ?? 1);
  };
  process.on("exit", restore);
  for (const sig of SIGNALS) process.on(sig, onSignal);
  // What a library prints with console.* while the UI owns the screen becomes a line of the
  // conversation instead of text written across the frame.
  const consoleMethods = ["log", "info", "warn", "error", "debug"] as const;
  const saved = consoleMethods.map((m) => console[m]);
  for (const m of consoleMethods) {
    console[m] = (...args: unknown[]) => {
      controller.conv.addNotice(format(...args), m === "warn" || m === "error" ? "error" : "info");
      controller.changed();
    };
  }
  stdout.write(ENTER);
  try {
    await runApp({
      controller,
      tools: { palette: p, markdown, wrap },
      history: new PromptHistory(promptHistoryFile(ws.root, env)),
      ws,
      stdout,
      stdin: process.stdin,
    });
  } finally {
    consoleMethods.forEach((m, i) => (console[m] = saved[i]));
    controller.close();
    restore();
    process.off("exit", restore);
    for (const sig of SIGNALS) process.off(sig, onSignal);
  }
  io.stdout(p.dim(`session ${controller.agent.sessionId} saved; rt chat --continue resumes it\n`));
  return 0;
}
