// Shared set-up for the agent tests: the real agent loop and the real provider
// code, talking over loopback HTTP to the scripted model server (the model is
// the only stand-in).
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { Agent, type AgentOptions } from "../../src/agent/loop.ts";
import { agentWorkspace } from "../../src/agent/rtOnPath.ts";
import { createOpenAICompatibleProvider } from "../../src/agent/providers/openaiCompatible.ts";
import { createAnthropicProvider } from "../../src/agent/providers/anthropic.ts";
import type { AgentEvent } from "../../src/agent/events.ts";
import { after, before, beforeEach } from "node:test";
import { startLlmServer, type LlmServer, type LlmServerOptions } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";

export function openaiProvider(server: LlmServer) {
  return createOpenAICompatibleProvider({ baseURL: server.openaiBaseUrl, retry: { maxRetries: 0 } });
}

export function anthropicProvider(server: LlmServer) {
  return createAnthropicProvider({ baseURL: server.anthropicBaseUrl, apiKey: "test-key", retry: { maxRetries: 0 } });
}

/** An agent on `root`, talking to `server` (OpenAI protocol unless a provider is given). */
export function makeAgent(root: string, server: LlmServer, opts: Partial<AgentOptions> = {}): Agent {
  const ws = agentWorkspace(createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined } }));
  return new Agent({
    workspace: ws,
    provider: opts.provider ?? openaiProvider(server),
    model: "test-model",
    modelLabel: "openai-compatible/test-model",
    protocol: "tools",
    approval: "auto",
    contextWindow: 100_000,
    ...opts,
  });
}

export async function collect(gen: AsyncGenerator<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const ev of gen) out.push(ev);
  return out;
}

export function ofType<T extends AgentEvent["type"]>(
  events: AgentEvent[],
  type: T,
): Array<Extract<AgentEvent, { type: T }>> {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

export function last(events: AgentEvent[]): AgentEvent {
  return events[events.length - 1];
}

/** The text of every message of a recorded request, joined (to check what the model was shown). */
export function requestText(body: { messages?: Array<{ content?: unknown }>; system?: unknown }): string {
  const parts: string[] = [];
  if (typeof body.system === "string") parts.push(body.system);
  // Anthropic's system prompt as text blocks (the form that carries cache markers).
  else if (Array.isArray(body.system)) parts.push(body.system.map((b: { text?: string }) => b.text ?? "").join(""));
  for (const m of body.messages ?? [])
    parts.push(typeof m.content === "string" ? m.content : JSON.stringify(m.content));
  return parts.join("\n");
}

/**
 * The scripted server as the default provider (Ollama, through OLLAMA_HOST),
 * for a test file that runs the built CLI: started before the file's tests,
 * reset before each, closed after. `env()` is the environment of every run:
 * that server, no user configuration, no other provider's key.
 */
export function scriptedOllama(opts: LlmServerOptions = { models: [{ name: "test-model", contextLength: 32768 }] }) {
  const ctx = {
    server: undefined as unknown as LlmServer,
    configHome: "",
    env(extra: Record<string, string> = {}): Record<string, string | undefined> {
      return {
        OLLAMA_HOST: ctx.server.url,
        XDG_CONFIG_HOME: ctx.configHome,
        OPENAI_API_KEY: undefined,
        ANTHROPIC_API_KEY: undefined,
        ...extra,
      };
    },
  };
  before(async () => {
    ctx.server = await startLlmServer(opts);
    ctx.configHome = tempTree({}, "rt-config-");
  });
  after(() => ctx.server.close());
  beforeEach(() => ctx.server.reset());
  return ctx;
}
