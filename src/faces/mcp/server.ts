// One MCP server per client connection (the stdio client, or one HTTP session),
// built on the SDK's low-level Server: tools/list comes from mcpToolList() (run.ts) with
// the registry's own JSON schemas, and tools/call goes straight to the policy's
// callTool(). The SDK does not validate tool arguments here, so a schema
// violation is the policy's actionable tool error, not a JSON-RPC error.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  RequestSchema,
  RootsListChangedNotificationSchema,
  type CallToolResult,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { callTool } from "../../tools/policy.js";
import type { ImageInput } from "../../tools/types.js";
import { providerImageLimits } from "../../agent/imageInput.js";
import { findTool } from "../../tools/registry.js";
import type { ToolProgress } from "../../tools/types.js";
import type { McpToolEntry } from "./toolList.js";
import { toCallToolResult, toolErrorResult } from "./results.js";
import { refusedRootPath } from "./roots.js";
import { guardHttpBatches } from "./protocol.js";
import { MCP_PROGRESS_EVERY_MS, MCP_ROOTS_TIMEOUT_MS } from "../../base/limits.js";
import type { McpSession } from "./session.js";
import type { Flags } from "../../ui/agentSetup.js";
import { AGENT_TOOL_NAME, agentToolEntry } from "./agentTool.js";

/**
 * Images go back as MCP image content. The client's model is unknown: the
 * limits are Anthropic's (1568 px, 3.75 MB), the tightest of the providers rt
 * knows, so the image fits whichever model the client has.
 */
const mcpImageInput = (): Promise<ImageInput> =>
  Promise.resolve({ vision: true, limits: providerImageLimits("anthropic") });

const INSTRUCTIONS = `rt: navigation, search and line-addressed editing of one workspace directory. Paths are relative to the workspace root.
Find code with grep / find, look at it with open (a 100-line window around path:LINE) or read, edit with edit_lines or edit (old/new text).
Line IDs survive other edits: read or grep with ids: true, then pass "N:ID" references (e.g. "12:k3f9") to edit_lines; line numbers shift after an insertion, IDs do not.
Edits that add syntax errors are rejected and leave the file unchanged; dry_run: true previews any edit as a diff.`;

/**
 * tools/call with params of any shape. The SDK's Server checks a tools/call
 * request against CallToolRequestSchema itself and answers a malformed one
 * with -32602 Invalid params; had the handler been registered with that schema,
 * the same check would run first and fail as -32603 Internal error.
 */
const AnyToolCallSchema = RequestSchema.extend({ method: CallToolRequestSchema.shape.method });

export interface ServerOptions {
  version: string;
  /** tools/list, computed once per process (it depends on the profile and environment only). */
  tools: McpToolEntry[];
  session: McpSession;
  /** `rt mcp --agent`: offer rt_agent too, with these agent flags (--model...). */
  agent?: Flags;
}

/**
 * A JSON-RPC error the SDK sends as it is. (Its McpError puts "MCP error -32602: "
 * before the message, and the SDK's client adds the same prefix again.)
 */
export function protocolError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

const SDK_PREFIX = /^(MCP error -?\d+: )+/;

/**
 * Every message the server sends goes through here: an error message loses the
 * "MCP error N: " prefix of the SDK's own errors (the client adds it once).
 */
function cleanErrors(transport: Transport): void {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    if ("error" in message && typeof message.error?.message === "string" && SDK_PREFIX.test(message.error.message)) {
      message = { ...message, error: { ...message.error, message: message.error.message.replace(SDK_PREFIX, "") } };
    }
    return send(message, options);
  };
}

/** Turns a call's progress into MCP progress notifications for `token`, at most one per MCP_PROGRESS_EVERY_MS. */
function progressSender(
  token: string | number,
  notify: (params: { progressToken: string | number; progress: number; message: string }) => Promise<void>,
) {
  let sent = 0;
  let last = 0;
  let bytes = 0;
  let tail = "";
  return (p: ToolProgress) => {
    let message: string;
    if (p.kind === "output") {
      bytes += p.data.length;
      tail = (tail + p.data.toString("utf8")).slice(-2000);
      const lines = tail.trimEnd().split("\n");
      message = `${bytes} bytes of output; last line: ${lines[lines.length - 1].slice(0, 200)}`;
    } else message = p.message;
    const now = Date.now();
    if (now - last < MCP_PROGRESS_EVERY_MS) return;
    last = now;
    // progress must grow with every notification: it counts them.
    void notify({ progressToken: token, progress: ++sent, message }).catch(() => undefined);
  };
}

export function createMcpServer({ version, tools, session, agent }: ServerOptions): Server {
  const server = new Server({ name: "rt", version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const listed = tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
    annotations: t.annotations,
  }));
  if (agent) listed.push(agentToolEntry);

  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    // rt lists every tool in one page and never hands out a cursor.
    if (request.params?.cursor !== undefined) {
      throw protocolError(
        ErrorCode.InvalidParams,
        `invalid cursor ${JSON.stringify(request.params.cursor)}: tools/list returns every tool in one page (no nextCursor); call it without a cursor`,
      );
    }
    return { tools: listed };
  });

  server.setRequestHandler(AnyToolCallSchema, async (raw, extra): Promise<CallToolResult> => {
    const { name, arguments: args, _meta } = CallToolRequestSchema.parse(raw).params; // already checked by the SDK
    // An unknown name is a protocol error (as the MCP specification has it); any
    // registry name or alias is accepted, listed or not (the policy explains
    // why an unlisted one is refused).
    if (agent && name === AGENT_TOOL_NAME) {
      const token = _meta?.progressToken;
      let sent = 0;
      const progress =
        token !== undefined
          ? (message: string) =>
              void extra
                .sendNotification({
                  method: "notifications/progress",
                  params: { progressToken: token, progress: ++sent, message },
                })
                .catch(() => undefined)
          : undefined;
      const target = await session.target(() =>
        extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema, { timeout: MCP_ROOTS_TIMEOUT_MS }),
      );
      if ("error" in target) return toolErrorResult(target.error);
      const { runAgentTool } = await import("./agentTool.js");
      try {
        return await runAgentTool(target.workspace, args ?? {}, agent, {
          signal: extra.signal,
          ...(progress ? { progress } : {}),
        });
      } catch (e) {
        return toolErrorResult(`${AGENT_TOOL_NAME} failed: ${(e as Error).message}`);
      }
    }
    const tool = findTool(name);
    if (!tool) {
      throw protocolError(
        ErrorCode.InvalidParams,
        `unknown tool "${name}"; available tools: ${tools.map((t) => t.name).join(", ")}`,
      );
    }
    const token = _meta?.progressToken;
    const onProgress =
      token !== undefined
        ? progressSender(token, (params) => extra.sendNotification({ method: "notifications/progress", params }))
        : undefined;
    try {
      const target = await session.target(() =>
        extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema, { timeout: MCP_ROOTS_TIMEOUT_MS }),
      );
      if ("error" in target) return toolErrorResult(target.error);
      const refusal = refusedRootPath(args, target.workspace.root, target.refused);
      if (refusal) return toolErrorResult(refusal);
      const result = await callTool(target.workspace, name, args ?? {}, {
        signal: extra.signal,
        ...(onProgress ? { onProgress } : {}),
        imageInput: mcpImageInput,
      });
      return toCallToolResult(result, tool.name);
    } catch (e) {
      // callTool turns handler failures into results; this is for anything else.
      return toolErrorResult(`${name} failed: ${(e as Error).message}`);
    }
  });

  server.oninitialized = () => session.clientInitialized(server);
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => session.rootsChanged());

  // Every transport the server is connected to (stdio in run.ts, one per HTTP
  // session in httpServer.ts) gets the same treatment on the way out, and an
  // HTTP transport refuses JSON-RPC batches where the protocol removed them.
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    cleanErrors(transport);
    guardHttpBatches(transport);
    return connect(transport);
  };
  return server;
}
