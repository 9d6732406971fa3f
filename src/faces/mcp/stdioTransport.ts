// MCP over stdio: one JSON-RPC message per line on stdin and stdout. The SDK's
// own stdio transport reports a line that is not JSON, or not a JSON-RPC
// message, only to its onerror callback (the client never hears back), and
// closes the connection when a line exceeds its buffer. This one answers each
// of those with the JSON-RPC error the specification prescribes (-32700 Parse
// error, -32600 Invalid Request, with the request's id when it has one and
// null otherwise) and goes on reading: bad input never ends the server.
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
    void this.close();
  };

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

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
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
