// Background shells: commands started with `background: true`, read with
// bash_output and ended with kill_shell. They belong to this process: the
// registry lives in memory, and every shell still running when the process
// exits is killed (processes.ts; sandboxed ones also through bubblewrap's
// --die-with-parent). So they are useful in long-lived faces (the agent, the
// MCP server, `rt call --batch`), not across separate `rt` invocations.
import { BACKGROUND_BUFFER_MAX_BYTES, BACKGROUND_MAX_SHELLS } from "../base/limits.js";
import { ToolError } from "../base/errors.js";
import { startCommand, type ExitInfo, type RunningCommand, type StreamName } from "./runner.js";
import type { SandboxSpec } from "./sandbox.js";

interface Pending {
  stream: StreamName;
  text: string;
}

export interface BackgroundShell {
  id: string;
  command: string;
  cwd: string;
  sandboxed: boolean;
  how: string;
  startedAt: number;
  run: RunningCommand;
  exit?: ExitInfo;
  /** Unread output, in arrival order. */
  unread: Pending[];
  unreadBytes: number;
  /** Unread bytes dropped because the buffer was full, since the last read. */
  dropped: number;
  /** Incomplete last line of each stream, held back when a filter is used. */
  partial: Record<StreamName, string>;
}

const shells = new Map<string, BackgroundShell>();
let counter = 0;

export interface StartBackgroundOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  sandbox?: SandboxSpec;
  how: string;
  timeoutMs?: number;
}

export function startBackground(opts: StartBackgroundOptions): BackgroundShell {
  const running = [...shells.values()].filter((s) => !s.exit).length;
  if (running >= BACKGROUND_MAX_SHELLS) {
    throw new ToolError(
      `${running} background shells are already running (the limit is ${BACKGROUND_MAX_SHELLS}); end one with kill_shell first`,
    );
  }
  const id = `bash_${++counter}`;
  const decoders: Record<StreamName, TextDecoder> = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  const shell: BackgroundShell = {
    id,
    command: opts.command,
    cwd: opts.cwd,
    sandboxed: opts.sandbox !== undefined,
    how: opts.how,
    startedAt: Date.now(),
    run: undefined as unknown as RunningCommand,
    unread: [],
    unreadBytes: 0,
    dropped: 0,
    partial: { stdout: "", stderr: "" },
  };
  shell.run = startCommand({
    command: opts.command,
    cwd: opts.cwd,
    env: opts.env,
    sandbox: opts.sandbox,
    timeoutMs: opts.timeoutMs,
    onData: (stream, chunk) => {
      const text = decoders[stream].decode(chunk, { stream: true });
      if (text) append(shell, stream, text);
    },
  });
  // The shell must not keep this process alive: when it exits, the shell is killed (processes.ts).
  shell.run.unref();
  shell.run.done.then((exit) => {
    shell.exit = exit;
    for (const s of ["stdout", "stderr"] as const) {
      const rest = decoders[s].decode();
      if (rest) append(shell, s, rest);
    }
  });
  shells.set(id, shell);
  return shell;
}

function append(shell: BackgroundShell, stream: StreamName, text: string): void {
  const last = shell.unread[shell.unread.length - 1];
  if (last && last.stream === stream) last.text += text;
  else shell.unread.push({ stream, text });
  shell.unreadBytes += text.length;
  while (shell.unreadBytes > BACKGROUND_BUFFER_MAX_BYTES && shell.unread.length > 0) {
    const first = shell.unread[0];
    const excess = shell.unreadBytes - BACKGROUND_BUFFER_MAX_BYTES;
    if (first.text.length <= excess) {
      shell.unread.shift();
      shell.unreadBytes -= first.text.length;
      shell.dropped += first.text.length;
    } else {
      first.text = first.text.slice(excess);
      shell.unreadBytes -= excess;
      shell.dropped += excess;
    }
  }
}

export function getBackground(id: string): BackgroundShell {
  const shell = shells.get(id);
  if (!shell) {
    const known = [...shells.keys()];
    throw new ToolError(
      `no background shell "${id}"${known.length ? `; known shells: ${known.join(", ")}` : "; none has been started in this process (background shells live as long as the rt process that started them)"}`,
    );
  }
  return shell;
}

export interface NewOutput {
  stdout: string;
  stderr: string;
  /** Lines hidden by the filter. */
  filteredOut: number;
  dropped: number;
}

/**
 * Which of `lines` a filter keeps, all at once (one call per read, so that a caller can bound the
 * time it takes as a whole). It may throw: then nothing was taken and the output waits unread.
 */
export type LineFilter = (lines: string[]) => boolean[];

/**
 * Takes the output that arrived since the last read. With `filter`, only the
 * complete lines matching it are returned (the others are consumed); an
 * incomplete last line waits for the next read unless the shell has exited.
 */
export function takeOutput(shell: BackgroundShell, filter?: LineFilter): NewOutput {
  const out: NewOutput = { stdout: "", stderr: "", filteredOut: 0, dropped: shell.dropped };
  const pending = shell.unread;
  const finished = shell.exit !== undefined;
  if (!filter) {
    for (const { stream, text } of pending) out[stream] += text;
  } else {
    // Every line first (nothing changed yet), then the filter's one verdict on all of them.
    const partial = { ...shell.partial };
    const lines: Array<{ stream: StreamName; line: string; newline: boolean }> = [];
    for (const { stream, text } of pending) {
      const split = (partial[stream] + text).split("\n");
      partial[stream] = split.pop() ?? "";
      for (const line of split) lines.push({ stream, line, newline: true });
    }
    if (finished) {
      for (const stream of ["stdout", "stderr"] as const) {
        if (partial[stream] !== "") lines.push({ stream, line: partial[stream], newline: false });
        partial[stream] = "";
      }
    }
    const keep = filter(lines.map((l) => l.line));
    lines.forEach((l, i) => {
      if (keep[i]) out[l.stream] += l.newline ? `${l.line}\n` : l.line;
      else out.filteredOut++;
    });
    shell.partial = partial;
  }
  shell.unread = [];
  shell.unreadBytes = 0;
  shell.dropped = 0;
  return out;
}

/** Ends a background shell and waits (briefly) for it to be gone. */
export async function killBackground(shell: BackgroundShell): Promise<ExitInfo> {
  if (!shell.exit) shell.run.kill();
  return shell.run.done;
}

/** Every background shell of this process (for tests and listings). */
export function listBackground(): BackgroundShell[] {
  return [...shells.values()];
}
