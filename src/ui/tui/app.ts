// The Ink app: draws composeScreen's lines and maps the terminal's keys onto
// the controller (dialogs, interrupts, slash commands) and the editor. Ink and
// React are loaded here with import(), when the full-screen UI starts.
import type { Key } from "ink";
import type { Workspace } from "../../workspace/workspace.js";
import { otherWay, queueWords, type TuiController } from "./controller.js";
import type { QueueWhen } from "./settings.js";
import { isPlainPrompt } from "../promptLine.js";
import { Editor, HistoryCursor } from "./editor.js";
import { conversationLines, MarkdownCache, todoLines, type ViewTools } from "./lines.js";
import { composeScreen } from "./screen.js";
import { statusLine } from "./status.js";
import { dialogLines, type DialogKey } from "./dialogs.js";
import { commonPrefix, pathCandidates, slashCandidates } from "./completion.js";
import type { PromptHistory } from "./promptHistory.js";
import { TUI_FRAME_MS, TUI_QUIT_WINDOW_MS, TUI_WHEEL_LINES } from "../../base/limits.js";

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

export interface AppOptions {
  controller: TuiController;
  tools: ViewTools;
  history: PromptHistory;
  ws: Workspace;
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

interface Completion {
  start: number;
  values: Array<{ value: string; note?: string }>;
  selected: number;
}

/**
 * Ink draws only its final frame when it thinks it runs in CI: its is-in-ci
 * module reads CI and CONTINUOUS_INTEGRATION once, when loaded. This UI runs
 * only on a terminal somebody is looking at (many developers export CI=1, and
 * CI jobs run tests on pseudo-terminals), so Ink is loaded with those hidden;
 * the environment is put back at once for the commands the agent runs.
 */
async function importInk(): Promise<typeof import("ink")> {
  const names = ["CI", "CONTINUOUS_INTEGRATION"] as const;
  const saved = names.map((n) => process.env[n]);
  for (const n of names) delete process.env[n];
  try {
    return await import("ink");
  } finally {
    names.forEach((n, i) => {
      if (saved[i] !== undefined) process.env[n] = saved[i];
    });
  }
}

/** Renders the UI until the user quits; resolves when Ink has unmounted. */
export async function runApp(o: AppOptions): Promise<void> {
  const [React, ink] = await Promise.all([import("react"), importInk()]);
  const h = React.createElement;
  const { controller: c, tools } = o;
  const p = tools.palette;
  const md = new MarkdownCache();
  const editor = new Editor();
  const historyCursor = new HistoryCursor(() => o.history.entries);
  let instance: { clear: () => void } | undefined;

  function App() {
    const { exit } = ink.useApp();
    const [, setFrame] = React.useState(0);
    const redraw = React.useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
    const state = React.useRef({
      scrollBack: 0,
      lastTotal: 0,
      viewRows: 10,
      completion: undefined as Completion | undefined,
      flash: undefined as string | undefined,
      lastCtrlC: 0,
      lastEsc: 0,
      editingQueued: false,
    });
    const s = state.current;
    const refresh = React.useCallback(() => {
      if (redraw.current) return;
      redraw.current = setTimeout(() => {
        redraw.current = undefined;
        setFrame((f) => f + 1);
      }, TUI_FRAME_MS);
    }, []);

    React.useEffect(() => c.subscribe(refresh), [refresh]);
    // /quit: the controller asks, the next frame ends the app.
    React.useEffect(() => {
      if (c.quitRequested) exit();
    });
    // The elapsed time of the running operation ticks every second.
    React.useEffect(() => {
      const t = setInterval(() => c.conv.operation && refresh(), 1000);
      return () => clearInterval(t);
    }, [refresh]);
    React.useEffect(() => {
      // The terminal reflowed the old frame; Ink would erase only as many rows as it drew.
      // Start from a blank screen and draw the whole frame again at the new size.
      const onResize = () => {
        instance?.clear();
        o.stdout.write("\x1b[2J\x1b[H");
        setFrame((f) => f + 1);
      };
      o.stdout.on("resize", onResize);
      return () => void o.stdout.off("resize", onResize);
    }, []);

    const flash = (text: string) => {
      s.flash = text;
      setFrame((f) => f + 1);
      // unref: a message still on screen must not keep rt alive after the user quit.
      setTimeout(() => {
        if (s.flash === text) s.flash = undefined;
        refresh();
      }, TUI_QUIT_WINDOW_MS).unref();
    };

    const liveSlash = () => {
      // While the prompt is one word starting with "/", the matching commands are listed as it is typed.
      const text = editor.text;
      if (/^\/\S*$/.test(text)) {
        const values = slashCandidates(text, c.customCommands);
        s.completion =
          values.length && !(values.length === 1 && values[0].value === text)
            ? { start: 0, values, selected: 0 }
            : undefined;
      } else s.completion = undefined; // an @path list is for the word it was asked for: typing on closes it
    };

    const accept = (cand: string) => {
      const done = s.completion!;
      editor.replaceWord(done.start, cand + (cand.startsWith("@") && cand.endsWith("/") ? "" : " "));
      s.completion = undefined;
    };

    /** Whether Tab would complete the word before the cursor (a /command at the start, an @path). */
    const completable = () => {
      const { word, start } = editor.wordAtCursor();
      return (word.startsWith("/") && editor.row === 0 && start === 0) || word.startsWith("@");
    };

    const complete = async () => {
      const { word, start } = editor.wordAtCursor();
      let values: Completion["values"] = [];
      if (word.startsWith("/") && editor.row === 0 && start === 0) values = slashCandidates(word, c.customCommands);
      else if (word.startsWith("@")) values = await pathCandidates(o.ws, word.slice(1));
      if (values.length === 0) return;
      if (values.length === 1) {
        s.completion = { start, values, selected: 0 };
        accept(values[0].value);
      } else {
        const prefix = commonPrefix(values.map((v) => v.value));
        if (prefix.length > word.length) editor.replaceWord(start, prefix);
        s.completion = { start, values, selected: 0 };
      }
      setFrame((f) => f + 1);
    };

    /** Enter (and Tab during a turn): the input is sent; while a turn runs it waits, `when` says for what. */
    const submit = (when?: QueueWhen) => {
      const text = editor.text;
      if (text.trim() === "") return;
      o.history.add(text);
      s.editingQueued = false;
      historyCursor.reset();
      editor.clear();
      s.completion = undefined;
      s.scrollBack = 0;
      c.submit(text, when);
    };

    // Bracketed paste (enabled on start): what comes between the markers is text, newlines included.
    const paste = React.useRef(false);
    ink.useInput((input: string, key: Key) => {
      if (input === "[200~") return void (paste.current = true);
      if (input === "[201~") return void (paste.current = false);
      if (paste.current) {
        editor.insert(input);
        return setFrame((f) => f + 1);
      }
      // Keys typed faster than they are read arrive as one chunk ("hello\r", "@no\t"; "hello\n" when typed
      // before the terminal was switched to raw mode): each Enter, Tab and Backspace in it is that key.
      if (input.length > 1 && /[\r\n\t\x7f]/.test(input) && !input.startsWith("[")) {
        for (const part of input.split(/(\r\n?|\n|\t|\x7f)/)) {
          if (part === "") continue;
          if (part === "\t") onKey("", { ...NO_KEY, tab: true });
          else if (part === "\x7f") onKey("", { ...NO_KEY, backspace: true });
          else if (/^[\r\n]/.test(part)) onKey("", { ...NO_KEY, return: true });
          else onKey(part, NO_KEY);
        }
        return;
      }
      onKey(input, key);
    });

    function onKey(input: string, key: Key): void {
      // The mouse wheel (SGR reports, enabled on start): 64 up, 65 down.
      const wheel = /^\[<(6[45]);\d+;\d+[Mm]$/.exec(input);
      if (wheel) {
        s.scrollBack = Math.max(0, s.scrollBack + (wheel[1] === "64" ? TUI_WHEEL_LINES : -TUI_WHEEL_LINES));
        return setFrame((f) => f + 1);
      }
      if (/^\[<\d+;\d+;\d+[Mm]$/.test(input)) return; // clicks: nothing to do
      if (key.ctrl && input === "l") {
        instance?.clear();
        o.stdout.write("\x1b[2J\x1b[H");
        return setFrame((f) => f + 1);
      }
      if (key.ctrl && input === "o") {
        c.expanded = !c.expanded;
        return setFrame((f) => f + 1);
      }
      if (key.pageUp || key.pageDown) {
        const page = Math.max(1, s.viewRows - 1);
        s.scrollBack = Math.max(0, s.scrollBack + (key.pageUp ? page : -page));
        return setFrame((f) => f + 1);
      }
      if (c.dialogs.length) {
        if (key.ctrl && input === "c") {
          if (!c.interrupt()) c.dialogKey({ input: "", escape: true });
          return;
        }
        const k: DialogKey = {
          input: key.ctrl || key.meta ? "" : input,
          up: key.upArrow,
          down: key.downArrow,
          enter: key.return,
          escape: key.escape,
          backspace: key.backspace || key.delete,
          space: input === " ",
        };
        c.dialogKey(k);
        return;
      }
      if (key.ctrl && input === "c") {
        if (c.interrupt()) return flash("interrupting…");
        if (!editor.empty) {
          editor.clear();
          s.completion = undefined;
          return setFrame((f) => f + 1);
        }
        const now = Date.now();
        if (now - s.lastCtrlC < TUI_QUIT_WINDOW_MS) return exit();
        s.lastCtrlC = now;
        return flash("Ctrl-C again to quit");
      }
      if (key.ctrl && input === "d") {
        if (editor.empty && !c.isRunning) return exit();
        editor.deleteForward();
        return setFrame((f) => f + 1);
      }
      if (key.escape) {
        // A queued prompt taken back with ↑: Esc drops it (the turn keeps running).
        if (s.editingQueued) {
          s.editingQueued = false;
          editor.clear();
          return flash("queued prompt removed");
        }
        if (c.interrupt()) return flash("interrupting…");
        s.completion = undefined;
        // Esc twice on an empty prompt: the rewind list (as /rewind).
        if (editor.empty) {
          const now = Date.now();
          if (now - s.lastEsc < TUI_QUIT_WINDOW_MS) {
            s.lastEsc = 0;
            s.flash = undefined;
            void c.rewind();
            return setFrame((f) => f + 1);
          }
          s.lastEsc = now;
          return flash("Esc again to rewind");
        }
        return setFrame((f) => f + 1);
      }
      if (key.tab) {
        // Shift+Tab without a completion list: the next approval mode (ask → auto-edit → plan → ask).
        if (key.shift && !s.completion) {
          const mode = c.cycleApproval();
          return flash(`approval mode: ${mode}`);
        }
        if (s.completion && s.completion.values.length > 1) {
          s.completion.selected =
            (s.completion.selected + (key.shift ? s.completion.values.length - 1 : 1)) % s.completion.values.length;
          return setFrame((f) => f + 1);
        }
        // During a turn, Tab sends what was typed the other way than Enter (tui.queued_prompts), unless the
        // word before the cursor is a /command or an @path to complete.
        if (c.isRunning && !editor.empty && !s.completion && !completable()) {
          submit(otherWay(c.tuiSettings.queuedPrompts));
          return setFrame((f) => f + 1);
        }
        void complete();
        return;
      }
      if (key.return) {
        if (s.completion && s.completion.values.length) {
          accept(s.completion.values[s.completion.selected].value);
          // A slash command without arguments runs at once.
          const text = editor.text.trim();
          if (!(text.startsWith("/") && /^\/\S+$/.test(text))) return setFrame((f) => f + 1);
        }
        const beforeCursor = editor.lines[editor.row].slice(0, editor.col);
        if (key.meta || key.shift) editor.newline();
        else if (beforeCursor.endsWith("\\")) {
          editor.backspace();
          editor.newline();
        } else submit();
        return setFrame((f) => f + 1);
      }
      if (key.upArrow || key.downArrow) {
        if (s.completion && s.completion.values.length) {
          const n = s.completion.values.length;
          s.completion.selected = (s.completion.selected + (key.upArrow ? n - 1 : 1)) % n;
        } else if (key.upArrow && editor.empty && c.queued.length) {
          editor.set(c.unqueueLast()!);
          s.editingQueued = true;
        } else if (key.upArrow) {
          if (!editor.up()) {
            const older = historyCursor.older(editor.text);
            if (older !== undefined) editor.set(older);
          }
        } else if (!editor.down()) {
          const newer = historyCursor.newer();
          if (newer !== undefined) editor.set(newer);
        }
        return setFrame((f) => f + 1);
      }
      if (key.leftArrow) editor.left();
      else if (key.rightArrow) editor.right();
      else if (key.home || (key.ctrl && input === "a")) editor.home();
      else if (key.end || (key.ctrl && input === "e")) {
        editor.end();
        s.scrollBack = 0;
      } else if (key.backspace || key.delete) editor.backspace();
      else if (key.ctrl && input === "u") editor.killBefore();
      else if (key.ctrl && input === "k") editor.killAfter();
      else if (key.ctrl && input === "w") editor.killWord();
      else if (key.ctrl || key.meta) return;
      // Shift+Enter from xterm's modifyOtherKeys: ESC [27;2;13~ (the ESC is already gone).
      else if (input === "[27;2;13~") editor.newline();
      else if (input) editor.insert(input);
      liveSlash();
      setFrame((f) => f + 1);
    }

    // A rewound prompt comes back into the input, for editing.
    if (c.offeredInput !== undefined) {
      editor.set(c.offeredInput);
      c.offeredInput = undefined;
    }
    const width = Math.max(20, o.stdout.columns || 80);
    // One row less than the terminal: Ink clears the whole screen on every frame of a full-height output.
    const height = Math.max(6, (o.stdout.rows || 24) - 1);
    const now = Date.now();
    const conversation = conversationLines(c.conv, tools, { width, expanded: c.expanded, now }, md);
    // Scrolled up: new lines arrive below, the view stays where the user put it.
    if (s.scrollBack > 0 && conversation.length > s.lastTotal) s.scrollBack += conversation.length - s.lastTotal;
    s.lastTotal = conversation.length;
    const dialog = c.dialogs[0];
    const enterWay = c.tuiSettings.queuedPrompts;
    const status = statusLine(
      {
        model: c.agent.currentModel,
        approval: c.approval,
        usage: c.conv.usage,
        cost: c.conv.sessionCost,
        contextTokens: c.contextTokens,
        contextWindow: c.contextWindow,
        // While a dialog waits, the agent waits for the user, not for the model.
        operation:
          dialog && c.conv.operation
            ? {
                ...c.conv.operation,
                label: dialog.kind === "approval" ? "Waiting for your approval…" : "Waiting for your answer…",
              }
            : c.conv.operation,
        now,
        ...(s.flash ? { flash: s.flash } : {}),
      },
      p,
      width,
    );
    const screen = composeScreen({
      width,
      height,
      conversation,
      scrollBack: s.scrollBack,
      todos: todoLines(c.conv.todos, p, width),
      ...(dialog ? { dialog: dialogLines(dialog, p, width, (t, w) => md.lines(tools, t, w)) } : {}),
      editor,
      ...(s.completion ? { completion: s.completion } : {}),
      status,
      palette: p,
      ...(c.queued.length
        ? {
            queued: c.queued.map((q) => ({
              text: q.text,
              note: `queued (${queueWords(q.when)})`,
            })),
          }
        : {}),
      // While a turn runs and something is typed: what Enter and Tab will do with it (a command waits either way).
      ...(c.isRunning && !editor.empty && !dialog
        ? {
            hint: isPlainPrompt(editor.text)
              ? `Enter: ${queueWords(enterWay)} · Tab: ${queueWords(otherWay(enterWay))}`
              : "Enter: after the turn (a command, or resources to attach, wait for the turn's end)",
          }
        : {}),
    });
    s.scrollBack = screen.scrollBack;
    s.viewRows = screen.viewRows;
    return h(
      ink.Box,
      { flexDirection: "column", width, height },
      // One row each, blank ones included (Ink gives an empty Text no height).
      screen.lines.map((line, i) =>
        h(ink.Box, { key: i, height: 1, flexShrink: 0 }, h(ink.Text, { wrap: "truncate-end" }, line)),
      ),
    );
  }

  const app = ink.render(h(App), {
    stdout: o.stdout,
    stdin: o.stdin,
    exitOnCtrlC: false,
    // console.* is turned into conversation lines by tui.ts.
    patchConsole: false,
    maxFps: 30,
    // Terminals known to speak kitty's keyboard protocol (kitty, WezTerm, ghostty; Ink asks them
    // first) then tell Shift+Enter from Enter.
    kittyKeyboard: { mode: "auto" },
  });
  instance = app;
  await app.waitUntilExit();
}
