// Protocol details that depend on the MCP version a client negotiated.
// JSON-RPC batches (an array of messages in one line or one HTTP body) came in
// with 2025-03-26 and were removed in 2025-06-18: a session on a later version
// gets a JSON-RPC error for one, as for any other message that is not valid there.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The first protocol version without JSON-RPC batches. */
export const BATCHES_REMOVED_IN = "2025-06-18";
/** What a Streamable HTTP server assumes when a request carries no MCP-Protocol-Version header (the specification's rule). */
const HTTP_DEFAULT_VERSION = "2025-03-26";

/** Whether a session on `version` may send a batch (versions are dates: they compare as strings). */
export function batchesAllowed(version: string): boolean {
  return version < BATCHES_REMOVED_IN;
}

export function batchRefusal(version: string): string {
  return `Invalid Request: JSON-RPC batches were removed from MCP in ${BATCHES_REMOVED_IN}, and this session uses ${version}; send one message at a time`;
}

/** The protocol version in the server's answer to initialize, if `message` is that answer. */
export function negotiatedVersion(message: JSONRPCMessage): string | undefined {
  if (!("result" in message)) return undefined;
  const r = message.result as Record<string, unknown>;
  return typeof r.protocolVersion === "string" && "serverInfo" in r && "capabilities" in r
    ? r.protocolVersion
    : undefined;
}

/** An HTTP error answer with a JSON-RPC error body (nothing once headers are sent). */
export function jsonError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

/**
 * Makes a Streamable HTTP transport refuse a batch (HTTP 400, -32600) when the
 * request's protocol version (its MCP-Protocol-Version header, else the one the
 * session negotiated) is one without batches. The SDK's transport accepts
 * batches on every version. The body is the one httpServer.ts parsed; other
 * transports are left as they are.
 */
export function guardHttpBatches(transport: Transport): void {
  if (!(transport instanceof StreamableHTTPServerTransport)) return;
  let negotiated: string | undefined;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    negotiated = negotiatedVersion(message) ?? negotiated;
    return send(message, options);
  };
  const handle = transport.handleRequest.bind(transport);
  transport.handleRequest = async (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => {
    // httpServer.ts reads and parses every JSON POST (within its size limit) before the transport sees it.
    if (req.method === "POST" && Array.isArray(parsedBody)) {
      const header = req.headers["mcp-protocol-version"];
      const version = (typeof header === "string" ? header : undefined) ?? negotiated ?? HTTP_DEFAULT_VERSION;
      if (!batchesAllowed(version)) {
        jsonError(res, 400, ErrorCode.InvalidRequest, batchRefusal(version));
        return;
      }
    }
    return handle(req, res, parsedBody);
  };
}
