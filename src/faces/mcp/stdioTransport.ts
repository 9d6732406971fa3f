// MCP over stdio: one JSON-RPC message per line on stdin and stdout. The SDK's
// own stdio transport reports a line that is not JSON, or not a JSON-RPC
// message, only to its onerror callback (the client never hears back), and
// closes the connection when a line exceeds its buffer. This one answers each
// of those with the JSON-RPC error the specification prescribes (-32700 Parse
// error, -32600 Invalid Request, with the request's id when it has one and
// null otherwise) and goes on reading: bad input never ends the server.
// When standard input ends, the requests already received are still answered
// before the transport closes (`printf '...' | rt mcp` gets every answer).
// As over HTTP, a request before `initialize` (other than ping) is refused, and
// a JSON-RPC batch is answered as a batch on the protocol versions that have
// them (up to 2025-03-26) and refused on later ones.
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { batchesAllowed, batchRefusal, negotiatedVersion } from "./protocol.js";

type Id = string | number;

/** The Streamable HTTP transport's answer to a request before initialize, given the same way here. */
const NOT_INITIALIZED = "Bad Request: Server not initialized: send initialize first";

const NEWLINE = 0x0a;

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Chunks of the line being read (not yet ended by a newline). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while skipping the rest of a line that grew past maxBytes. */
  private discarding = false;
  private closed = false;
  /** Standard input has ended: close once every received request is answered. */
  private ended = false;
  /** Requests received and not answered yet, by id (a count, should a client reuse an id). */
  private readonly unanswered = new Map<string | number, number>();
  /** The client has sent initialize. */
  private initializing = false;
  /** The protocol version the server answered initialize with. */
  private version: string | undefined;
  /** Batches being answered: the requests still open, and the answers so far. */
  private readonly batches: Array<{ open: Set<Id>; answers: unknown[] }> = [];

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxBytes: number,
  ) {}

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("error", this.onInputError);
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    for (let nl = buf.indexOf(NEWLINE); nl !== -1; nl = buf.indexOf(NEWLINE)) {
      const head = buf.subarray(0, nl);
      buf = buf.subarray(nl + 1);
      const tooLong = this.discarding || this.pendingBytes + head.length > this.maxBytes;
      const line = tooLong ? undefined : this.pending.length ? Buffer.concat([...this.pending, head]) : head;
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = false;
      if (line) this.handleLine(line.toString("utf8"));
      else
        this.reply(
          null,
          ErrorCode.InvalidRequest,
          `Invalid Request: message longer than ${this.maxBytes} bytes; it was discarded`,
        );
    }
    if (buf.length === 0 || this.discarding) return;
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (this.pendingBytes > this.maxBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
    }
  };

  private readonly onEnd = (): void => {
    this.ended = true;
    this.closeIfDone();
  };

  private closeIfDone(): void {
    if (this.ended && this.unanswered.size === 0) void this.close();
  }

  private count(id: string | number, delta: 1 | -1): void {
    const n = (this.unanswered.get(id) ?? 0) + delta;
    if (n > 0) this.unanswered.set(id, n);
    else this.unanswered.delete(id);
  }

  /** Keeps count of the requests to answer; a cancelled request gets no answer. */
  private track(message: JSONRPCMessage): void {
    if ("method" in message && "id" in message) this.count(message.id, 1);
    else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if ((typeof id === "string" || typeof id === "number") && this.unanswered.has(id)) this.count(id, -1);
    }
  }

  private readonly onInputError = (e: Error): void => {
    this.onerror?.(e);
  };

  private handleLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      this.reply(null, ErrorCode.ParseError, `Parse error: ${(e as Error).message}`);
      return;
    }
    if (Array.isArray(value)) {
      this.handleBatch(value);
      return;
    }
    const refusal = this.refusal(value);
    if (refusal) {
      if (refusal.message) this.reply(refusal.id, refusal.code, refusal.message); // a notification is dropped unanswered
      return;
    }
    this.deliver(value as JSONRPCMessage);
  }

  /** Why one message is not passed on (not JSON-RPC; a request before initialize), with the id to answer; undefined when it may be. */
  private refusal(value: unknown): { id: Id | null; code: number; message: string } | undefined {
    const parsed = JSONRPCMessageSchema.safeParse(value);
    const rawId = (value as { id?: unknown } | null)?.id;
    const id = typeof rawId === "string" || typeof rawId === "number" ? rawId : null;
    if (!parsed.success) {
      return {
        id,
        code: ErrorCode.InvalidRequest,
        message:
          'Invalid Request: not a JSON-RPC 2.0 message (expected {"jsonrpc": "2.0", "id": ..., "method": ..., "params": {...}})',
      };
    }
    const m = parsed.data;
    if (!this.initializing && "method" in m) {
      if (m.method === "initialize" && "id" in m) {
        this.initializing = true;
        // The version the server will answer with (the SDK's rule), known before its answer is sent.
        const asked = (m.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
        this.version =
          typeof asked === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
      } else if (m.method !== "ping")
        return "id" in m
          ? { id: m.id, code: -32000, message: NOT_INITIALIZED }
          : { id: null, code: -32000, message: "" };
    }
    return undefined;
  }

  private deliver(message: JSONRPCMessage): void {
    this.track(message);
    try {
      this.onmessage?.(message);
    } catch (e) {
      this.onerror?.(e as Error);
    }
  }

  /** A JSON-RPC batch: answered as one array where the negotiated version has batches, else refused. */
  private handleBatch(items: unknown[]): void {
    if (this.version === undefined || !batchesAllowed(this.version)) {
      const why =
        this.version === undefined
          ? `Invalid Request: a JSON-RPC batch before initialize; send initialize alone first`
          : batchRefusal(this.version);
      this.reply(null, ErrorCode.InvalidRequest, why);
      return;
    }
    if (items.length === 0) {
      this.reply(null, ErrorCode.InvalidRequest, "Invalid Request: an empty batch");
      return;
    }
    const batch = { open: new Set<Id>(), answers: [] as unknown[] };
    const deliver: JSONRPCMessage[] = [];
    for (const item of items) {
      const refusal = this.refusal(item);
      const isInitialize = (item as { method?: unknown } | null)?.method === "initialize";
      if (refusal || isInitialize) {
        const message = isInitialize
          ? "Invalid Request: initialize must not be part of a JSON-RPC batch"
          : refusal!.message;
        const rawId = (item as { id?: unknown } | null)?.id;
        const id = refusal?.id ?? (typeof rawId === "string" || typeof rawId === "number" ? rawId : null);
        if (message)
          batch.answers.push({
            jsonrpc: "2.0",
            id,
            error: { code: refusal?.code ?? ErrorCode.InvalidRequest, message },
          });
        continue;
      }
      const m = item as JSONRPCMessage;
      if ("method" in m && "id" in m) batch.open.add(m.id);
      deliver.push(m);
    }
    if (batch.open.size > 0) this.batches.push(batch);
    else if (batch.answers.length) void this.write(`${JSON.stringify(batch.answers)}\n`);
    for (const m of deliver) this.deliver(m);
  }

  /** A JSON-RPC error response written directly (the SDK's message types do not allow id: null). */
  private reply(id: string | number | null, code: number, message: string): void {
    this.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }

  private write(text: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(text)) resolve();
      else this.output.once("drain", resolve);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.version = negotiatedVersion(message) ?? this.version;
    const id = "result" in message || "error" in message ? message.id : undefined;
    const batch = id !== undefined ? this.batches.find((b) => b.open.has(id)) : undefined;
    if (batch && id !== undefined) {
      // Part of a batch: the batch's answers go out together, once all are in.
      batch.open.delete(id);
      batch.answers.push(message);
      if (batch.open.size === 0) {
        this.batches.splice(this.batches.indexOf(batch), 1);
        await this.write(`${JSON.stringify(batch.answers)}\n`);
      }
    } else await this.write(`${JSON.stringify(message)}\n`);
    if (id !== undefined && this.unanswered.has(id)) {
      this.count(id, -1);
      this.closeIfDone();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onInputError);
    this.input.pause();
    this.onclose?.();
  }
}
