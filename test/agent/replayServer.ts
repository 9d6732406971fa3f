// A loopback server that answers model requests with real recorded responses
// (test/fixtures/replay/): the bytes of each recording, framed on the wire the
// way its provider frames them, one event per write. Model lists and Ollama's
// probes get a minimal answer naming the models (they are not part of any
// recording: rt asks for them before the first turn). Every request is kept,
// headers and parsed body, for the checks of what rt sends.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo, Socket } from "node:net";
import { REPO } from "../helpers.ts";

export const REPLAY_DIR = path.join(REPO, "test", "fixtures", "replay");

export type Framing = "sse" | "chunks-openai" | "chunks-anthropic" | "chunks-responses" | "ndjson" | "json";
export type ReplayProvider =
  | "openai"
  | "openai-compatible"
  | "deepseek"
  | "openrouter"
  | "anthropic"
  | "ollama"
  | "openai-responses";

export interface ManifestEntry {
  id: string;
  provider: ReplayProvider;
  file: string;
  framing: Framing;
  status?: number;
  source: {
    repo?: string;
    path?: string;
    commit?: string;
    interaction?: number;
    url?: string;
    blocks?: number[];
    /** openai-node: the Jest snapshot's name. */
    key?: string;
    /** coder/aibridge: the txtar file. */
    section?: string;
    /** cline/cline: the entry of the recording. */
    index?: number;
    /** A file holding several responses: the first and last line (from 1) of this one. */
    lines?: [number, number];
  };
  /** Whether the service produced the bytes ("real") or a test author wrote or edited them (absent: real). */
  recorded?: "real" | "edited" | "hand-written";
  note?: string;
  /**
   * followUp: "tools", the request that carries the tool results; "continue", the request of a second
   * `rt run --continue`; "sampling-retry", the retry without temperature; "retry", the same request again
   * after a transient error (answered by a finished answer); "cut-tool", the request after an answer cut
   * at the output limit in the middle of a tool call (the cut call not run, the model told so); "pause", the
   * request that continues a paused Anthropic turn with the paused content as it came.
   */
  expect: {
    exit: number;
    finish: string;
    kind?: string;
    toolCalls: number;
    followUp?: "tools" | "continue" | "sampling-retry" | "retry" | "cut-tool" | "pause";
  };
}

export function loadManifest(): ManifestEntry[] {
  return (
    JSON.parse(fs.readFileSync(path.join(REPLAY_DIR, "manifest.json"), "utf8")) as { recordings: ManifestEntry[] }
  ).recordings;
}

export function recordingText(e: ManifestEntry): string {
  return fs.readFileSync(path.join(REPLAY_DIR, "files", e.file), "utf8");
}

/** The pieces written to the socket, in order; joined, they are the recorded body (plus the framing the recorder removed). */
export function frames(e: ManifestEntry): string[] {
  const text = recordingText(e);
  switch (e.framing) {
    case "sse":
      // One event per write: split after each blank line, keeping every byte.
      return text.split(/(?<=\r?\n\r?\n)/).filter((s) => s !== "");
    case "chunks-openai":
      return [
        ...text
          .split("\n")
          .filter((l) => l.trim() !== "")
          .map((l) => `data: ${l}\n\n`),
        "data: [DONE]\n\n",
      ];
    case "chunks-responses":
      // The Responses API names every event after its type and sends no [DONE].
      return text
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => `event: ${(JSON.parse(l) as { type: string }).type}\ndata: ${l}\n\n`);
    case "chunks-anthropic":
      return text
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => `event: ${(JSON.parse(l) as { type: string }).type}\ndata: ${l}\n\n`);
    case "ndjson":
      return text.split(/(?<=\n)/).filter((s) => s !== "");
    case "json":
      return [text];
  }
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface ReplayServer {
  url: string;
  requests: SeenRequest[];
  /** Model calls only (chat completions, messages, /api/chat). */
  readonly calls: SeenRequest[];
  models: string[];
  /** Recordings answering the next model calls, in order. */
  queue(...entries: ManifestEntry[]): void;
  readonly pending: number;
  reset(): void;
  close(): Promise<void>;
}

const isModelCall = (method: string, p: string) =>
  method === "POST" &&
  (p.endsWith("/chat/completions") || p.endsWith("/responses") || p === "/v1/messages" || p === "/api/chat");

export async function startReplayServer(): Promise<ReplayServer> {
  const requests: SeenRequest[] = [];
  const queue: ManifestEntry[] = [];
  const sockets = new Set<Socket>();
  const state = { models: [] as string[] };
  const json = (res: http.ServerResponse, status: number, data: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(data));
  };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const p = (req.url ?? "/").split("?")[0];
    const method = req.method ?? "GET";
    requests.push({ method, path: p, headers: req.headers, body });

    if (method === "GET" && p.endsWith("/models")) {
      if (req.headers["anthropic-version"]) {
        return json(res, 200, {
          data: state.models.map((id) => ({ id, type: "model", display_name: id, created_at: "2025-01-01T00:00:00Z" })),
          has_more: false,
          first_id: null,
          last_id: null,
        });
      }
      return json(res, 200, {
        object: "list",
        data: state.models.map((id) => ({ id, object: "model", owned_by: "replay" })),
      });
    }
    if (method === "GET" && p === "/api/tags")
      return json(res, 200, { models: state.models.map((name) => ({ name, model: name })) });
    if (method === "POST" && p === "/api/show")
      return json(res, 200, {
        model_info: { "general.architecture": "llama", "llama.context_length": 32768 },
        parameters: "",
        capabilities: ["completion", "tools"],
      });
    if (!isModelCall(method, p)) return json(res, 404, { error: `replay: no route for ${method} ${p}` });

    const entry = queue.shift();
    if (!entry)
      return json(res, 500, { error: { message: "replay: no recording left for this request", type: "server_error" } });
    const pieces = frames(entry);
    const contentType =
      entry.framing === "json"
        ? "application/json"
        : entry.framing === "ndjson"
          ? "application/x-ndjson"
          : "text/event-stream; charset=utf-8";
    res.writeHead(entry.status ?? 200, { "content-type": contentType });
    try {
      for (const piece of pieces) {
        if (!res.write(piece)) await new Promise((r) => res.once("drain", r));
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    } catch {
      // rt went away mid-answer: nothing to do.
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    get calls() {
      return requests.filter((r) => isModelCall(r.method, r.path));
    },
    get models() {
      return state.models;
    },
    set models(m: string[]) {
      state.models = m;
    },
    queue: (...entries) => void queue.push(...entries),
    get pending() {
      return queue.length;
    },
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
