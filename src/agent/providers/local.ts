// The `local` provider: a GGUF model run in this process with node-llama-cpp (llama.cpp).
//
// node-llama-cpp is imported on the first request, never at start-up. A model is loaded
// once per process (per file, GPU choice, threads and context size) and shared by every
// provider object that names it, so subagents reuse the main agent's model; requests to
// one model run one at a time, on its one context sequence.
//
// With tools, every turn is constrained by a grammar (localGrammar.ts): the model writes
// either {"answer": "..."} or one call {"tool": NAME, "arguments": {...}} that follows
// the tool's schema, and the call is checked against the schema again before it is
// yielded. Tool calls and results go back to the model as text, so any chat template
// works. Without tools (rt's text mode) the model writes freely, streamed as it comes.
import fs from "node:fs";
import os from "node:os";
import { LOCAL_DEFAULT_MAX_OUTPUT_TOKENS, LOCAL_MAX_CONTEXT, LOCAL_MIN_CONTEXT } from "../../base/limits.js";
import { parseTurnOutput, turnGrammar, type ToolChoice } from "./localGrammar.js";
import {
  ProviderError,
  type ChatMessage,
  type ModelRequest,
  type Provider,
  type StreamPart,
  type ToolSpec,
} from "./types.js";

type Nlc = typeof import("node-llama-cpp");
type ChatHistoryItem = import("node-llama-cpp").ChatHistoryItem;

export interface LocalOptions {
  /** The GGUF file. */
  modelPath: string;
  /** Threads for generation (default: physicalCores()). */
  threads?: number;
  /** "auto" (default): a GPU when node-llama-cpp finds one; false: the CPU only. */
  gpu?: false | "auto" | "cuda" | "vulkan" | "metal";
  /** Context size in tokens (default: chosen by node-llama-cpp from free memory, LOCAL_MIN_CONTEXT..LOCAL_MAX_CONTEXT). */
  contextSize?: number;
  /** Seed of the sampler (tests make runs repeatable with it). */
  seed?: number;
  /** A cap on the strings of a tool call's arguments (a small model looping inside one stops there). */
  maxStringChars?: number;
}

interface Loaded {
  nlc: Nlc;
  llama: import("node-llama-cpp").Llama;
  model: import("node-llama-cpp").LlamaModel;
  context: import("node-llama-cpp").LlamaContext;
  chat: import("node-llama-cpp").LlamaChat;
  /** The tail of the queue of requests to this model. */
  queue: Promise<void>;
}

const loaded = new Map<string, Promise<Loaded>>();
let nlcModule: Promise<Nlc> | undefined;

/** The machine's physical cores (Linux: distinct core ids in /proc/cpuinfo), else its logical CPUs. */
export function physicalCores(): number {
  try {
    const info = fs.readFileSync("/proc/cpuinfo", "utf8");
    const cores = new Set<string>();
    let phys = "0";
    for (const line of info.split("\n")) {
      const [k, v] = line.split(":").map((s) => s.trim());
      if (k === "physical id") phys = v;
      else if (k === "core id") cores.add(`${phys}:${v}`);
    }
    if (cores.size > 0) return cores.size;
  } catch {
    // Not Linux: fall through.
  }
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}

function importNlc(): Promise<Nlc> {
  nlcModule ??= import("node-llama-cpp").catch((e) => {
    nlcModule = undefined;
    throw new ProviderError(
      `cannot load node-llama-cpp (the local model runtime): ${(e as Error).message}. Reinstall rt (npm ci).`,
      "server",
    );
  });
  return nlcModule;
}

async function load(o: LocalOptions, threads: number): Promise<Loaded> {
  const nlc = await importNlc();
  // build "never": use the prebuilt binaries that came with npm; never fetch or compile llama.cpp.
  const llama = await nlc.getLlama({
    build: "never",
    gpu: o.gpu ?? "auto",
    logLevel: nlc.LlamaLogLevel.error,
    logger: () => {},
    progressLogs: false,
  });
  let model;
  try {
    model = await llama.loadModel({ modelPath: o.modelPath });
  } catch (e) {
    throw new ProviderError(`cannot load the local model ${o.modelPath}: ${(e as Error).message}`, "model_not_found");
  }
  const max = Math.max(LOCAL_MIN_CONTEXT, Math.min(model.trainContextSize, LOCAL_MAX_CONTEXT));
  let context;
  try {
    context = await model.createContext({
      contextSize: o.contextSize ?? { min: Math.min(LOCAL_MIN_CONTEXT, max), max },
      threads,
      sequences: 1,
    });
  } catch (e) {
    await model.dispose();
    throw new ProviderError(
      `not enough free memory for the local model ${o.modelPath} with a context of ${o.contextSize ?? LOCAL_MIN_CONTEXT} tokens: ${(e as Error).message}`,
      "server",
    );
  }
  const chat = new nlc.LlamaChat({ contextSequence: context.getSequence() });
  return { nlc, llama, model, context, chat, queue: Promise.resolve() };
}

/** The loaded model for these options: loaded on first use, then shared by the whole process. */
function loadedModel(o: LocalOptions): Promise<Loaded> {
  const threads = o.threads ?? physicalCores();
  const key = JSON.stringify([o.modelPath, o.gpu ?? "auto", threads, o.contextSize ?? null]);
  let p = loaded.get(key);
  if (!p) {
    p = load(o, threads);
    loaded.set(key, p);
    p.catch(() => loaded.delete(key));
  }
  return p;
}

/** Frees every loaded model (tests, and a process that is done with them). */
export async function unloadLocalModels(): Promise<void> {
  const all = [...loaded.values()];
  loaded.clear();
  for (const p of all) {
    const m = await p.catch(() => undefined);
    if (m) {
      await m.context.dispose();
      await m.model.dispose();
      await m.llama.dispose();
    }
  }
}

/** What the model is told about answering and calling tools (the grammar enforces the shape). */
export function toolInstructions(tools: ToolSpec[], choice: ToolChoice): string {
  const lines = [
    "",
    "# How to answer",
    "Write exactly one JSON object per turn.",
    choice === "required"
      ? 'Call one tool: {"tool": "NAME", "arguments": {...}}. Its result comes back in the next message.'
      : 'To reply to the user: {"answer": "your reply"}. To call one tool: {"tool": "NAME", "arguments": {...}}; its result comes back in the next message, then continue.',
    "",
    "# Tools",
  ];
  for (const t of tools)
    lines.push(`## ${t.name}`, t.description, `arguments (JSON schema): ${JSON.stringify(t.parameters)}`, "");
  return lines.join("\n");
}

/** The conversation as node-llama-cpp's chat history; tool calls and results as text. */
export function toChatHistory(messages: ChatMessage[], extraSystem: string): ChatHistoryItem[] {
  const out: ChatHistoryItem[] = [];
  const system =
    messages
      .filter((m) => m.role === "system")
      .map((m) => m.content)
      .join("\n\n") + extraSystem;
  if (system) out.push({ type: "system", text: system });
  const user = (text: string) => {
    const last = out.at(-1);
    if (last?.type === "user") last.text = `${last.text}\n\n${text}`;
    else out.push({ type: "user", text });
  };
  for (const m of messages) {
    if (m.role === "user") user(m.content);
    else if (m.role === "tool") user(`Result of ${m.name}${m.isError ? " (error)" : ""}:\n${m.content}`);
    else if (m.role === "assistant") {
      const parts: string[] = [];
      if (m.toolCalls?.length) {
        for (const c of m.toolCalls) {
          let args: unknown;
          try {
            args = JSON.parse(c.arguments);
          } catch {
            args = c.arguments;
          }
          parts.push(JSON.stringify({ tool: c.name, arguments: args }));
        }
      } else if (m.content) parts.push(extraSystem ? JSON.stringify({ answer: m.content }) : m.content);
      out.push({ type: "model", response: [parts.join("\n")] });
    }
  }
  out.push({ type: "model", response: [] });
  return out;
}

/** A queue of stream parts fed by a callback and read by an async generator. */
function partQueue() {
  const items: StreamPart[] = [];
  let wake: (() => void) | undefined;
  return {
    push(p: StreamPart) {
      items.push(p);
      wake?.();
    },
    async *drain(done: Promise<unknown>): AsyncGenerator<StreamPart> {
      let finished = false;
      void done
        .finally(() => {
          finished = true;
          wake?.();
        })
        .catch(() => {});
      for (;;) {
        while (items.length) yield items.shift()!;
        if (finished) break;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
      while (items.length) yield items.shift()!;
    },
  };
}

let callCounter = 0;

export function createLocalProvider(o: LocalOptions): Provider {
  return {
    name: "local",
    async contextWindow() {
      const m = await loadedModel(o);
      return m.context.contextSize;
    },
    async vision() {
      return false;
    },
    async listModels() {
      if (!fs.existsSync(o.modelPath))
        throw new ProviderError(`no local model file at ${o.modelPath}`, "model_not_found");
      return [o.modelPath];
    },
    async *stream(req: ModelRequest): AsyncGenerator<StreamPart> {
      const m = await loadedModel(o);
      // One request at a time per model: wait for the ones before, and hold the queue until done.
      let release!: () => void;
      const before = m.queue;
      m.queue = new Promise<void>((r) => (release = r));
      try {
        await before;
        yield* generate(m, o, req);
      } finally {
        release();
      }
    },
  };
}

async function* generate(m: Loaded, o: LocalOptions, req: ModelRequest): AsyncGenerator<StreamPart> {
  const tools = req.tools ?? [];
  const choice: ToolChoice = tools.length ? (req.toolChoice ?? "auto") : "none";
  const constrained = tools.length > 0;
  const history = toChatHistory(
    req.messages,
    constrained ? toolInstructions(choice === "none" ? [] : tools, choice) : "",
  );
  const grammar = constrained
    ? new m.nlc.LlamaGrammar(m.llama, { grammar: turnGrammar(tools, choice, o.maxStringChars) })
    : undefined;
  const q = partQueue();
  const run = m.chat.generateResponse(history, {
    ...(grammar ? { grammar } : {}),
    maxTokens: req.maxOutputTokens ?? LOCAL_DEFAULT_MAX_OUTPUT_TOKENS,
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(req.signal ? { signal: req.signal, stopOnAbortSignal: false } : {}),
    // Free text streams as it comes; constrained JSON is read whole at the end.
    ...(constrained ? {} : { onTextChunk: (delta: string) => q.push({ type: "text", delta }) }),
  });
  yield* q.drain(run);
  let res;
  try {
    res = await run;
  } catch (e) {
    if (req.signal?.aborted) throw new ProviderError("the request was aborted", "aborted");
    throw new ProviderError(`the local model failed: ${(e as Error).message}`, "server");
  }
  const outputTokens = m.model.tokenize(res.response).length;
  // The sequence holds the prompt and the answer: the prompt is the rest.
  const inputTokens = Math.max(0, m.chat.sequence.nextTokenIndex - outputTokens);
  yield { type: "usage", usage: { inputTokens, outputTokens } };
  const cut = res.metadata.stopReason === "maxTokens";
  if (!constrained) {
    yield { type: "finish", reason: cut ? "length" : "stop", raw: res.metadata.stopReason };
    return;
  }
  if (cut) {
    // A constrained answer cut before its end is no answer and no call: say where it stopped.
    yield {
      type: "text",
      delta: `(the local model's output stopped at the output limit before its JSON was complete: ${res.response.slice(0, 200)})`,
    };
    yield { type: "finish", reason: "length", raw: "maxTokens" };
    return;
  }
  let out;
  try {
    out = parseTurnOutput(res.response, tools);
  } catch (e) {
    throw new ProviderError(`the local model's output was refused: ${(e as Error).message}`, "stream_error");
  }
  if (out.kind === "answer") {
    if (out.text) yield { type: "text", delta: out.text };
    yield { type: "finish", reason: "stop" };
    return;
  }
  yield {
    type: "tool_call",
    call: {
      id: `local_${Date.now().toString(36)}_${callCounter++}`,
      name: out.name,
      arguments: JSON.stringify(out.arguments),
    },
  };
  yield { type: "finish", reason: "tool_calls" };
}
