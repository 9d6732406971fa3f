// The editor's terminals (ACP `terminal/*`) as the bash tool's ExternalTerminal:
// a command rt would run unsandboxed in the foreground runs in a terminal the
// editor creates (`bash -c COMMAND`), and the editor shows it inside the tool
// call. rt waits for its exit, takes its output, and releases it; a timeout or
// a cancelled turn kills it first.
import type * as acp from "@agentclientprotocol/sdk";
import type { ExternalTerminal } from "../../workspace/workspace.js";

/**
 * Pairs each bash tool call with the terminal its command runs in: the call's
 * start (from the agent's events) and the terminal's creation (from the tool)
 * can come in either order, and are matched by their command, oldest first.
 */
export class TerminalLinks {
  private readonly calls = new Map<string, string[]>();
  private readonly terminals = new Map<string, string[]>();
  /** terminal id by tool call id, once linked. */
  readonly linked = new Map<string, string>();

  constructor(private readonly onLink: (toolCallId: string, terminalId: string) => void) {}

  call(toolCallId: string, command: string): void {
    const waiting = this.terminals.get(command);
    if (waiting?.length) this.link(toolCallId, waiting.shift()!);
    else this.calls.set(command, [...(this.calls.get(command) ?? []), toolCallId]);
  }

  terminal(terminalId: string, command: string): void {
    const waiting = this.calls.get(command);
    if (waiting?.length) this.link(waiting.shift()!, terminalId);
    else this.terminals.set(command, [...(this.terminals.get(command) ?? []), terminalId]);
  }

  private link(toolCallId: string, terminalId: string): void {
    this.linked.set(toolCallId, terminalId);
    this.onLink(toolCallId, terminalId);
  }
}

export function editorTerminal(
  client: acp.AgentContext,
  sessionId: () => string,
  links: TerminalLinks,
): ExternalTerminal {
  return {
    async run({ command, cwd, env, timeoutMs, outputByteLimit, signal }) {
      const started = Date.now();
      const terminal = await client.createTerminal({
        sessionId: sessionId(),
        command: "bash",
        args: ["-c", command],
        cwd,
        env: Object.entries(env).map(([name, value]) => ({ name, value })),
        outputByteLimit,
      });
      links.terminal(terminal.id, command);
      let timedOut = false;
      const kill = () => terminal.kill().catch(() => undefined);
      const timer = setTimeout(() => {
        timedOut = true;
        void kill();
      }, timeoutMs);
      const onAbort = () => void kill();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const exit = await terminal.waitForExit();
        const out = await terminal.currentOutput();
        return {
          output: out.output,
          truncated: out.truncated,
          exitCode: exit.exitCode ?? null,
          signal: exit.signal ?? null,
          timedOut,
          durationMs: Date.now() - started,
        };
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        await terminal.release().catch(() => undefined);
      }
    },
  };
}
