// What a line the user typed becomes before it is sent, the same in `rt run`,
// `rt chat` and the full-screen UI: `/mcp__SERVER__PROMPT args` is the text of
// that MCP server's prompt; `/NAME args` a custom command's prompt, its
// !`commands` run and @files attached (Agent.expandCommand); and in every
// prompt, `@server:uri` mentions of the user's MCP servers attach those
// resources. A line starting with / that is none of these is "unknown" (the
// face has its own built-in commands, or says so).
import type { Agent } from "../agent/loop.js";
import { resolveSlashCommand, type CustomCommand } from "../extensions/slashCommands.js";

export type PromptLine =
  | { kind: "prompt"; prompt: string; allowedTools?: string[]; problems: string[] }
  | { kind: "error"; message: string }
  | { kind: "unknown" };

/** A mention of an MCP resource may be in the text (the MCP client is loaded only then). */
const MAY_MENTION = /(^|\s)@[A-Za-z0-9_.-]+:\S/;

/**
 * Whether a line is a plain prompt, its text sent as it is: not a command (`/`, `!`, `#`) and no
 * `@server:uri` mention to attach. Only such a line can be given to the model in the middle of a turn.
 */
export function isPlainPrompt(line: string): boolean {
  return !/^\s*[/!#]/.test(line) && !MAY_MENTION.test(line);
}

export async function promptForLine(
  agent: Agent,
  line: string,
  commands: readonly CustomCommand[],
  opts: { words?: readonly string[]; signal?: AbortSignal } = {},
): Promise<PromptLine> {
  const input = line.trim();
  let prompt = line;
  let allowedTools: string[] | undefined;
  if (input.startsWith("/mcp__")) {
    const { mcpPromptText, mcpPromptCommands } = await import("../mcpClient/session.js");
    let text: string | undefined;
    try {
      text = await mcpPromptText(input);
    } catch (e) {
      return { kind: "error", message: (e as Error).message };
    }
    if (text === undefined) {
      const known = mcpPromptCommands().map((c) => `/${c.command}`);
      return {
        kind: "error",
        message: `no MCP prompt ${input.split(/\s+/)[0]}; MCP prompts: ${known.join(", ") || "none"}`,
      };
    }
    prompt = text;
  } else if (input.startsWith("/")) {
    const custom = resolveSlashCommand(input, commands, opts.words);
    if (!custom) return { kind: "unknown" };
    const expanded = await agent.expandCommand(custom, opts.signal ? { signal: opts.signal } : {});
    if ("error" in expanded) return { kind: "error", message: expanded.error };
    prompt = expanded.prompt;
    allowedTools = custom.allowedTools;
  }
  let problems: string[] = [];
  if (MAY_MENTION.test(prompt)) {
    const { expandResourceMentions } = await import("../mcpClient/session.js");
    ({ prompt, problems } = await expandResourceMentions(prompt, opts.signal));
  }
  return { kind: "prompt", prompt, ...(allowedTools ? { allowedTools } : {}), problems };
}
