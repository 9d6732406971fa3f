// Protocol details that depend on the MCP version a client negotiated.
// JSON-RPC batches (an array of messages in one line or one HTTP body) came in
// with 2025-03-26 and were removed in 2025-06-18: a session on a later version
// gets a JSON-RPC error for one, as for any other message that is not valid there.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MCP_MAX_MESSAGE_BYTES } from "../../limits.js";

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
  return typeof r.protocolVersion === "string" && "serverInfo" in r && "capabilities" in r ? r.protocolVersion : undefined;
}

function jsonError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

/**
 * Makes a Streamable HTTP transport refuse a batch (HTTP 400, -32600) when the
 * request's protocol version (its MCP-Protocol-Version header, else the one the
 * session negotiated) is one without batches. The SDK's transport accepts
 * batches on every version; the body is read here (within the same size limit),
 * and handed to it already parsed. Other transports are left as they are.
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
    const type = String(req.headers["content-type"] ?? "");
    if (req.method !== "POST" || !/^application\/json\b/i.test(type)) return handle(req, res, parsedBody);
    // httpServer.ts parses the body itself (to see cancellations); read it here
    // only when it comes unparsed.
    let body = parsedBody;
    if (body === undefined) {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MCP_MAX_MESSAGE_BYTES) {
          jsonError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${MCP_MAX_MESSAGE_BYTES} bytes`);
          return;
        }
        chunks.push(chunk);
      }
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        jsonError(res, 400, ErrorCode.ParseError, "Parse error: Invalid JSON");
        return;
      }
    }
    if (Array.isArray(body)) {
      const header = req.headers["mcp-protocol-version"];
      const version = (typeof header === "string" ? header : undefined) ?? negotiated ?? HTTP_DEFAULT_VERSION;
      if (!batchesAllowed(version)) {
        jsonError(res, 400, ErrorCode.InvalidRequest, batchRefusal(version));
        return;
      }
    }
    return handle(req, res, body);
  };
}
