// One MCP server per client connection (the stdio client, or one HTTP session),
// built on the SDK's low-level Server: tools/list comes from mcpToolList() (run.ts) with
// the registry's own JSON schemas, and tools/call goes straight to the policy's
// callTool(). The SDK does not validate tool arguments here, so a schema
// violation is the policy's actionable tool error, not a JSON-RPC error.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  McpError,
  RequestSchema,
  RootsListChangedNotificationSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { callTool } from "../../tools/policy.js";
import { findTool } from "../../tools/registry.js";
import type { McpToolEntry } from "./toolList.js";
import { toCallToolResult, toolErrorResult } from "./results.js";
import { refusedRootPath } from "./roots.js";
import { MCP_ROOTS_TIMEOUT_MS } from "../../limits.js";
import type { McpSession } from "./session.js";

const INSTRUCTIONS = `rt: navigation, search and line-addressed editing of one workspace directory. Paths are relative to the workspace root.
Find code with grep / find, look at it with open (a 100-line window around path:LINE) or read, edit with edit_lines, edit_range, insert_at or edit (old/new text).
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
}

export function createMcpServer({ version, tools, session }: ServerOptions): Server {
  const server = new Server({ name: "rt", version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const listed = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));

  server.setRequestHandler(AnyToolCallSchema, async (raw, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = CallToolRequestSchema.parse(raw).params; // already checked by the SDK
    // An unknown name is a protocol error (as the MCP specification has it); any
    // registry name or alias is accepted, listed or not (the policy explains
    // why an unlisted one is refused).
    if (!findTool(name)) {
      throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}"; available tools: ${tools.map((t) => t.name).join(", ")}`);
    }
    try {
      const target = await session.target(() => extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema, { timeout: MCP_ROOTS_TIMEOUT_MS }));
      if ("error" in target) return toolErrorResult(target.error);
      const refusal = refusedRootPath(args, target.workspace.root, target.refused);
      if (refusal) return toolErrorResult(refusal);
      return toCallToolResult(await callTool(target.workspace, name, args ?? {}, { signal: extra.signal }));
    } catch (e) {
      // callTool turns handler failures into results; this is for anything else.
      return toolErrorResult(`${name} failed: ${(e as Error).message}`);
    }
  });

  server.oninitialized = () => session.clientInitialized(server);
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => session.rootsChanged());
  return server;
}
