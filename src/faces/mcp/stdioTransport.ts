// MCP over stdio: one JSON-RPC message per line on stdin and stdout. The SDK's
// own stdio transport reports a line that is not JSON, or not a JSON-RPC
// message, only to its onerror callback (the client never hears back), and
// closes the connection when a line exceeds its buffer. This one answers each
// of those with the JSON-RPC error the specification prescribes (-32700 Parse
// error, -32600 Invalid Request, with the request's id when it has one and
// null otherwise) and goes on reading: bad input never ends the server.
// When standard input ends, the requests already received are still answered
// before the transport closes (`printf '...' | rt mcp` gets every answer).
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

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
      else this.reply(null, ErrorCode.InvalidRequest, `Invalid Request: message longer than ${this.maxBytes} bytes; it was discarded`);
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
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      const message = Array.isArray(value)
        ? "Invalid Request: JSON-RPC batches are not supported by MCP; send one message per line"
        : 'Invalid Request: not a JSON-RPC 2.0 message (expected {"jsonrpc": "2.0", "id": ..., "method": ..., "params": {...}})';
      this.reply(typeof id === "string" || typeof id === "number" ? id : null, ErrorCode.InvalidRequest, message);
      return;
    }
    this.track(parsed.data);
    try {
      this.onmessage?.(parsed.data);
    } catch (e) {
      this.onerror?.(e as Error);
    }
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
    await this.write(`${JSON.stringify(message)}\n`);
    const id = "result" in message || "error" in message ? message.id : undefined;
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
