// Connections to the user's MCP servers through the official SDK's client
// (stdio: the server's program started with its args and env; Streamable
// HTTP: its url with its headers), and their tools as rt tools named
// mcp__SERVER__TOOL: arguments checked against the server's own input schema
// with Ajv, read-only only when the server annotates the tool readOnlyHint
// (so approvals treat every other one as a command), results capped like
// bash's output (head and tail, the whole saved under .rt/shell/), and every
// failure (a server that does not start, a call that errors or times out) a
// ToolResult, never an exception.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Workspace } from "../workspace/workspace.js";
import type { Tool, ToolResult } from "../tools/types.js";
import { MCP_CLIENT_CALL_TIMEOUT_MS, MCP_CLIENT_CONNECT_TIMEOUT_MS, MCP_CLIENT_OUTPUT_MAX_BYTES } from "../limits.js";
import { StreamCapture } from "../shell/capture.js";
import { newRunId, spillTarget } from "../tools/bash.js";
import { ajvSchema, loadAjv } from "../extensions/customTools.js";
import { safeCommandPath } from "../workspace/commandPath.js";
import type { McpServerConfig } from "./config.js";

export interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; title?: string };
}

export type ServerState = "connected" | "failed" | "closed";

export interface ServerStatus {
  name: string;
  transport: "stdio" | "http";
  origin: string;
  state: ServerState;
  error?: string;
  tools: RemoteTool[];
}

/** mcp__SERVER__TOOL, as Claude Code names them (characters a provider refuses in a tool name become _). */
export function qualifiedName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 128);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
      timer.unref();
    }),
  ]);
}

export class McpServerConnection {
  client: Client | undefined;
  status: ServerStatus;
  private stderr = "";

  constructor(readonly config: McpServerConfig) {
    this.status = { name: config.name, transport: config.transport, origin: config.origin, state: "closed", tools: [] };
  }

  async connect(ws: Workspace): Promise<ServerStatus> {
    try {
      const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
      const client = new Client({ name: "rt", version: "0.1.0" }, { capabilities: {} });
      const c = this.config;
      let transport;
      if (c.transport === "stdio") {
        const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
        const env: Record<string, string> = {};
        for (const [k, v] of Object.entries(ws.env)) if (v !== undefined) env[k] = v;
        env.PATH = safeCommandPath(ws.env.PATH, ws.root);
        const t = new StdioClientTransport({ command: c.command, args: c.args, env: { ...env, ...c.env }, cwd: c.cwd ?? ws.root, stderr: "pipe" });
        t.stderr?.on("data", (chunk: Buffer) => {
          if (this.stderr.length < 4000) this.stderr += chunk.toString();
        });
        transport = t;
      } else {
        const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
        transport = new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers: c.headers } });
      }
      await withTimeout(client.connect(transport), MCP_CLIENT_CONNECT_TIMEOUT_MS, `connecting to MCP server ${c.name}`);
      const tools: RemoteTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await withTimeout(client.listTools(cursor ? { cursor } : {}), MCP_CLIENT_CONNECT_TIMEOUT_MS, `tools/list of ${c.name}`);
        tools.push(...(page.tools as RemoteTool[]));
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      this.client = client;
      this.status = { ...this.status, state: "connected", tools, error: undefined };
    } catch (e) {
      const tail = this.stderr.trim().split("\n").slice(-3).join(" | ");
      this.status = { ...this.status, state: "failed", error: `${(e as Error).message}${tail ? ` (stderr: ${tail})` : ""}`, tools: [] };
      await this.client?.close().catch(() => undefined);
      this.client = undefined;
    }
    return this.status;
  }

  /** Calls a tool; every failure is a ToolResult. */
  async call(ws: Workspace, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
    const name = qualifiedName(this.config.name, tool);
    if (!this.client) return { success: false, output: "", error: `MCP server ${this.config.name} is not connected: ${this.status.error ?? "closed"}`, error_type: "tool", server: this.config.name };
    let result: { content?: unknown; isError?: boolean; structuredContent?: unknown };
    try {
      result = (await this.client.callTool({ name: tool, arguments: args }, undefined, { timeout: MCP_CLIENT_CALL_TIMEOUT_MS, ...(signal ? { signal } : {}) })) as typeof result;
    } catch (e) {
      return { success: false, output: "", error: `${name}: ${(e as Error).message}`, error_type: "tool", server: this.config.name };
    }
    const text = contentText(result.content, result.structuredContent);
    const capture = new StreamCapture(MCP_CLIENT_OUTPUT_MAX_BYTES, spillTarget(ws, newRunId(), "mcp"), "the full text was not saved (rt's state directory is off)");
    capture.push(Buffer.from(text, "utf8"));
    const captured = capture.finish();
    const meta = { server: this.config.name, tool, truncated: captured.truncated, ...(captured.savedPath ? { saved_output: [captured.savedPath] } : {}) };
    if (result.isError) {
      const first = captured.text.trim().split("\n")[0] ?? "";
      return { success: false, output: captured.text, error: `${name} returned an error${first ? `: ${first.slice(0, 300)}` : ""}`, error_type: "tool", ...meta };
    }
    return { success: true, output: captured.text, ...meta };
  }

  async close(): Promise<void> {
    await this.client?.close().catch(() => undefined);
    this.client = undefined;
    if (this.status.state === "connected") this.status = { ...this.status, state: "closed" };
  }
}

/** A tool result's content as text: text parts as they are, other parts named, structured content as JSON when there is no text. */
export function contentText(content: unknown, structured?: unknown): string {
  const parts: string[] = [];
  for (const c of Array.isArray(content) ? content : []) {
    const item = c as { type?: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string }; uri?: string };
    if (item.type === "text" && typeof item.text === "string") parts.push(item.text);
    else if (item.type === "resource" && item.resource) parts.push(item.resource.text ?? `[resource ${item.resource.uri ?? ""}]`);
    else if (item.type === "resource_link") parts.push(`[resource ${item.uri ?? ""}]`);
    else parts.push(`[${item.type ?? "content"}${item.mimeType ? ` ${item.mimeType}` : ""}]`);
  }
  if (!parts.length && structured !== undefined) parts.push(JSON.stringify(structured));
  return parts.join("\n");
}

/** A server's tool as an rt tool (mcp__SERVER__TOOL). */
export async function remoteToolAsTool(conn: McpServerConnection, remote: RemoteTool): Promise<Tool> {
  const ajv = await loadAjv();
  const schema = { type: "object", ...remote.inputSchema };
  let validate: ReturnType<typeof ajv.compile>;
  try {
    validate = ajv.compile(schema);
  } catch {
    // A server's schema Ajv cannot compile: the server checks its own arguments.
    validate = Object.assign(() => true, { errors: null });
  }
  let zodSchema: Tool["schema"] | undefined;
  const readOnly = remote.annotations?.readOnlyHint === true;
  return {
    name: qualifiedName(conn.config.name, remote.name),
    aliases: [],
    description: `${remote.description ?? remote.annotations?.title ?? remote.name} (MCP server ${conn.config.name})`.slice(0, 4000),
    get schema() {
      return (zodSchema ??= ajvSchema(validate));
    },
    inputJsonSchema: schema,
    readOnly,
    destructive: readOnly ? false : remote.annotations?.destructiveHint !== false,
    idempotent: remote.annotations?.idempotentHint === true,
    handler: (args, ctx) => conn.call(ctx.workspace, remote.name, args as Record<string, unknown>, ctx.signal),
  };
}
