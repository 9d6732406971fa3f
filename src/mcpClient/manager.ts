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
import type { Tool, ToolContext, ToolImage, ToolResult } from "../tools/types.js";
import {
  MCP_CLIENT_CALL_TIMEOUT_MS,
  MCP_CLIENT_CONNECT_TIMEOUT_MS,
  MCP_CLIENT_OUTPUT_MAX_BYTES,
} from "../base/limits.js";
import { StreamCapture } from "../shell/capture.js";
import { newRunId, spillTarget } from "../tools/bash.js";
import { ajvSchema, loadAjv } from "../extensions/customTools.js";
import { safeCommandPath } from "../workspace/commandPath.js";
import type { McpServerConfig } from "./config.js";
import { connectionAuth } from "./oauth.js";

export interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; title?: string };
}

export type ServerState = "connected" | "failed" | "closed";

export interface RemoteResource {
  uri: string;
  name?: string;
  description?: string;
  mimeType?: string;
}

export interface RemotePrompt {
  name: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
}

export interface ServerStatus {
  name: string;
  transport: "stdio" | "http" | "sse";
  origin: string;
  state: ServerState;
  error?: string;
  tools: RemoteTool[];
  /** What the server offers besides tools (empty when it has no such capability). */
  resources?: RemoteResource[];
  prompts?: RemotePrompt[];
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
  /** The server stopped after it had connected (its process exited, its connection closed). */
  private lost = false;
  /** Restarts after such a stop: one per process, said in the result of the call that made it. */
  private restarts = 0;
  private ws: Workspace | undefined;

  constructor(readonly config: McpServerConfig) {
    this.status = { name: config.name, transport: config.transport, origin: config.origin, state: "closed", tools: [] };
  }

  async connect(ws: Workspace): Promise<ServerStatus> {
    this.ws = ws;
    let client: Client | undefined;
    try {
      const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
      client = new Client({ name: "rt", version: "0.1.0" }, { capabilities: {} });
      const c = this.config;
      const startMs = c.startupTimeoutMs ?? MCP_CLIENT_CONNECT_TIMEOUT_MS;
      let transport;
      if (c.transport === "stdio") {
        const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
        const env: Record<string, string> = {};
        for (const [k, v] of Object.entries(ws.env)) if (v !== undefined) env[k] = v;
        env.PATH = safeCommandPath(ws.env.PATH, ws.root);
        const t = new StdioClientTransport({
          command: c.command,
          args: c.args,
          env: { ...env, ...c.env },
          cwd: c.cwd ?? ws.root,
          stderr: "pipe",
        });
        t.stderr?.on("data", (chunk: Buffer) => {
          if (this.stderr.length < 4000) this.stderr += chunk.toString();
        });
        transport = t;
      } else if (c.transport === "sse") {
        // The legacy HTTP+SSE transport (protocol 2024-11-05), which many servers still speak.
        const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
        transport = new SSEClientTransport(new URL(c.url), {
          authProvider: connectionAuth(c.name, c.url, ws.env),
          requestInit: { headers: c.headers },
          eventSourceInit: {
            fetch: (url, init) =>
              fetch(url, { ...init, headers: { ...c.headers, ...(init?.headers as Record<string, string>) } }),
          },
        });
      } else {
        const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
        transport = new StreamableHTTPClientTransport(new URL(c.url), {
          authProvider: connectionAuth(c.name, c.url, ws.env),
          requestInit: { headers: c.headers },
        });
      }
      // The SDK's own request timer gets the same bound, so that a server that never answers
      // initialize does not keep rt alive after the start timeout gave up on it.
      await withTimeout(client.connect(transport, { timeout: startMs }), startMs, `connecting to MCP server ${c.name}`);
      const tools: RemoteTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await withTimeout(
          client.listTools(cursor ? { cursor } : {}, { timeout: startMs }),
          startMs,
          `tools/list of ${c.name}`,
        );
        tools.push(...(page.tools as RemoteTool[]));
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      const caps = client.getServerCapabilities() ?? {};
      const resources = caps.resources ? await this.listAll(client, "resources") : [];
      const prompts = caps.prompts ? await this.listAll(client, "prompts") : [];
      this.client = client;
      this.lost = false;
      // A server that stops later (its process exits) is restarted once, on the next call.
      client.onclose = () => {
        if (this.client !== client) return;
        this.client = undefined;
        this.lost = true;
        this.status = {
          ...this.status,
          state: "failed",
          error: `the server stopped${this.stderrTail() ? ` (stderr: ${this.stderrTail()})` : ""}`,
        };
      };
      this.status = {
        ...this.status,
        state: "connected",
        tools,
        resources: resources as RemoteResource[],
        prompts: prompts as RemotePrompt[],
        error: undefined,
      };
    } catch (e) {
      const tail = this.stderrTail();
      this.status = {
        ...this.status,
        state: "failed",
        error: `${connectError(e as Error, this.config.name)}${tail ? ` (stderr: ${tail})` : ""}`,
        tools: [],
      };
      // Closing the client closes its transport: the process started, the pending request's timer.
      await client?.close().catch(() => undefined);
      this.client = undefined;
    }
    return this.status;
  }

  private stderrTail(): string {
    return this.stderr.trim().split("\n").slice(-3).join(" | ");
  }

  /** Every page of resources/list or prompts/list (a server that fails to list has none). */
  private async listAll(client: Client, what: "resources" | "prompts"): Promise<unknown[]> {
    const out: unknown[] = [];
    let cursor: string | undefined;
    try {
      do {
        const opts = { timeout: this.config.startupTimeoutMs ?? MCP_CLIENT_CONNECT_TIMEOUT_MS };
        const page =
          what === "resources"
            ? await client.listResources(cursor ? { cursor } : {}, opts)
            : await client.listPrompts(cursor ? { cursor } : {}, opts);
        out.push(
          ...(what === "resources"
            ? (page as { resources: unknown[] }).resources
            : (page as { prompts: unknown[] }).prompts),
        );
        cursor = page.nextCursor;
      } while (cursor && out.length < 10_000);
    } catch {
      /* listed as none */
    }
    return out;
  }

  /**
   * The connected client, restarting a server that stopped after it had
   * connected, once; `restarted` says so for the caller to tell the model.
   */
  private async ready(): Promise<{ client?: Client; restarted?: string }> {
    if (this.client) return { client: this.client };
    if (!this.lost || this.restarts >= 1 || !this.ws) return {};
    this.restarts++;
    const before = this.status.error;
    await this.connect(this.ws);
    return this.client
      ? {
          client: this.client,
          restarted: `note: MCP server ${this.config.name} had stopped (${before ?? "closed"}); rt restarted it for this call`,
        }
      : {};
  }

  /** A resource's contents as text (text parts as they are, binary ones named). */
  async readResource(uri: string, signal?: AbortSignal): Promise<ToolResult> {
    const { client, restarted } = await this.ready();
    if (!client)
      return {
        success: false,
        output: "",
        error: `MCP server ${this.config.name} is not connected: ${this.status.error ?? "closed"}`,
        error_type: "tool",
      };
    try {
      const r = await client.readResource(
        { uri },
        { timeout: MCP_CLIENT_CALL_TIMEOUT_MS, ...(signal ? { signal } : {}) },
      );
      const parts = r.contents.map((c) =>
        "text" in c && typeof c.text === "string"
          ? c.text
          : `[binary ${c.mimeType ?? "content"} at ${c.uri}, ${"blob" in c && typeof c.blob === "string" ? Math.floor((c.blob.length * 3) / 4) : 0} bytes]`,
      );
      return {
        success: true,
        output: [...(restarted ? [restarted] : []), ...parts].join("\n"),
        server: this.config.name,
        uri,
      };
    } catch (e) {
      return {
        success: false,
        output: "",
        error: `${this.config.name} ${uri}: ${(e as Error).message}`,
        error_type: "tool",
      };
    }
  }

  /** A prompt's messages as one text (a slash command's body). */
  async getPrompt(name: string, args: Record<string, string>): Promise<string> {
    const { client } = await this.ready();
    if (!client) throw new Error(`MCP server ${this.config.name} is not connected: ${this.status.error ?? "closed"}`);
    const r = await client.getPrompt({ name, arguments: args }, { timeout: MCP_CLIENT_CALL_TIMEOUT_MS });
    return r.messages.map((m) => contentText([m.content])).join("\n\n");
  }

  /** Calls a tool; every failure is a ToolResult. Images in the result go to the model where the face takes them. */
  async call(
    ws: Workspace,
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    imageInput?: ToolContext["imageInput"],
  ): Promise<ToolResult> {
    const name = qualifiedName(this.config.name, tool);
    const { client, restarted } = await this.ready();
    if (!client)
      return {
        success: false,
        output: "",
        error: `MCP server ${this.config.name} is not connected: ${this.status.error ?? "closed"}`,
        error_type: "tool",
        server: this.config.name,
      };
    let result: { content?: unknown; isError?: boolean; structuredContent?: unknown };
    try {
      result = (await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: MCP_CLIENT_CALL_TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      })) as typeof result;
    } catch (e) {
      return {
        success: false,
        output: "",
        error: `${name}: ${(e as Error).message}`,
        error_type: "tool",
        server: this.config.name,
      };
    }
    const images = await resultImages(result.content, imageInput);
    const text = [
      ...(restarted ? [restarted] : []),
      contentText(result.content, result.structuredContent, images.length > 0),
    ].join("\n");
    const capture = new StreamCapture(
      MCP_CLIENT_OUTPUT_MAX_BYTES,
      spillTarget(ws, newRunId(), "mcp"),
      "the full text was not saved (rt's state directory is off)",
    );
    capture.push(Buffer.from(text, "utf8"));
    const captured = capture.finish();
    const meta = {
      server: this.config.name,
      tool,
      truncated: captured.truncated,
      ...(captured.savedPath ? { saved_output: [captured.savedPath] } : {}),
    };
    if (result.isError) {
      const first = captured.text.trim().split("\n")[0] ?? "";
      return {
        success: false,
        output: captured.text,
        error: `${name} returned an error${first ? `: ${first.slice(0, 300)}` : ""}`,
        error_type: "tool",
        ...meta,
      };
    }
    return { success: true, output: captured.text, ...meta, ...(images.length ? { images } : {}) };
  }

  async close(): Promise<void> {
    await this.client?.close().catch(() => undefined);
    this.client = undefined;
    if (this.status.state === "connected") this.status = { ...this.status, state: "closed" };
  }
}

/**
 * The images of a result, fitted to the model's limits, when the face takes
 * images (the agent with a model that sees them); none otherwise, and an image
 * rt cannot read is left to its text placeholder.
 */
async function resultImages(content: unknown, imageInput: ToolContext["imageInput"]): Promise<ToolImage[]> {
  const raw = (Array.isArray(content) ? content : []).filter(
    (c): c is { type: "image"; data: string; mimeType?: string } =>
      (c as { type?: string })?.type === "image" && typeof (c as { data?: unknown }).data === "string",
  );
  if (!raw.length || !imageInput) return [];
  const input = await imageInput();
  if (!input.vision) return [];
  const { fitImage } = await import("../parsers/image.js");
  const out: ToolImage[] = [];
  for (const [i, c] of raw.entries()) {
    try {
      const f = await fitImage(`image ${i + 1} of the result`, Buffer.from(c.data, "base64"), input.limits);
      out.push({ media_type: f.mediaType, data_base64: f.data, width: f.width, height: f.height });
    } catch {
      /* said as text: [image ...] */
    }
  }
  return out;
}

/** A tool result's content as text: text parts as they are, other parts named, structured content as JSON when there is no text. */
export function contentText(content: unknown, structured?: unknown, imagesAttached = false): string {
  const parts: string[] = [];
  for (const c of Array.isArray(content) ? content : []) {
    const item = c as {
      type?: string;
      text?: string;
      mimeType?: string;
      resource?: { uri?: string; text?: string };
      uri?: string;
    };
    if (item.type === "text" && typeof item.text === "string") parts.push(item.text);
    else if (item.type === "resource" && item.resource)
      parts.push(item.resource.text ?? `[resource ${item.resource.uri ?? ""}]`);
    else if (item.type === "resource_link") parts.push(`[resource ${item.uri ?? ""}]`);
    else if (item.type === "image" && imagesAttached) parts.push(`[image ${item.mimeType ?? ""}: attached]`);
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
    description:
      `${remote.description ?? remote.annotations?.title ?? remote.name} (MCP server ${conn.config.name})`.slice(
        0,
        4000,
      ),
    get schema() {
      return (zodSchema ??= ajvSchema(validate));
    },
    inputJsonSchema: schema,
    readOnly,
    destructive: readOnly ? false : remote.annotations?.destructiveHint !== false,
    idempotent: remote.annotations?.idempotentHint === true,
    handler: (args, ctx) =>
      conn.call(ctx.workspace, remote.name, args as Record<string, unknown>, ctx.signal, ctx.imageInput),
  };
}

/**
 * A failed connection's reason for the user. A server that refused rt for want
 * of authorization (HTTP 401, the SDK's UnauthorizedError) says how to log in.
 */
function connectError(e: Error, server: string): string {
  const message = e.message || String(e);
  if (/needs authorization/.test(message)) return message;
  if (e.name === "UnauthorizedError" || (e as { code?: unknown }).code === 401 || /\b401\b|Unauthorized/.test(message))
    return `the server requires authorization (${message}): run rt mcp login ${server}`;
  return message;
}
