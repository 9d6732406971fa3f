// Helpers for the MCP tests: the real built CLI (dist/cli.js) started as
// `rt mcp`, driven by the SDK's own client over stdio or Streamable HTTP.
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";
import { CLI, tempTree } from "../helpers.js";

/** The environment rt runs with: this one, without variables that would change its root or profile. */
export function rtEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("RT_")) env[k] = v;
  return { ...env, ...extra };
}

export interface ClientOptions {
  /** Directories the client offers as MCP roots (none: no roots capability). */
  roots?: string[];
  /** The bearer token `rt mcp --http` printed (sent as Authorization: Bearer). */
  token?: string;
}

/** An SDK client, optionally offering roots; setRoots() changes them and tells the server. */
export function makeClient(opts: ClientOptions = {}): { client: Client; setRoots: (dirs: string[]) => Promise<void> } {
  const client = new Client(
    { name: "rt-test", version: "1.0.0" },
    opts.roots ? { capabilities: { roots: { listChanged: true } } } : {},
  );
  let roots = opts.roots ?? [];
  if (opts.roots) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: roots.map((d, i) => ({
        uri: d.startsWith("file:") || d.includes("://") ? d : pathToFileURL(d).href,
        name: `root ${i}`,
      })),
    }));
  }
  return {
    client,
    async setRoots(dirs) {
      roots = dirs;
      await client.sendRootsListChanged();
    },
  };
}

export interface StdioSession {
  client: Client;
  setRoots: (dirs: string[]) => Promise<void>;
  stderr: () => string;
  close: () => Promise<void>;
}

/** `rt --root ROOT ...args mcp ...mcpArgs` over stdio, connected. */
export async function connectStdio(
  root: string,
  args: string[] = [],
  opts: ClientOptions & { env?: Record<string, string> } = {},
  mcpArgs: string[] = [],
): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "--root", root, ...args, "mcp", ...mcpArgs],
    env: rtEnv(opts.env),
    cwd: root,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const { client, setRoots } = makeClient(opts);
  await client.connect(transport);
  return { client, setRoots, stderr: () => stderr, close: () => client.close() };
}

export interface HttpServer {
  url: string;
  /** The bearer token it printed (undefined with --no-auth). */
  token: string | undefined;
  /** The token file it named, if any. */
  tokenFile: string | undefined;
  /** Headers that authenticate a raw request. */
  auth: Record<string, string>;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<number | null>;
}

/**
 * Starts `rt mcp --http --port 0 ...` and waits for the address it prints (and
 * the token printed before it). The token file goes to a fresh XDG_RUNTIME_DIR
 * unless `env` names one.
 */
export function startHttp(root: string, args: string[] = [], env: Record<string, string> = {}): Promise<HttpServer> {
  const runtime = { XDG_RUNTIME_DIR: tempTree({}, "rt-runtime-"), ...env };
  const child = spawn(process.execPath, [CLI, "--root", root, "mcp", "--http", "--port", "0", ...args], {
    cwd: root,
    env: rtEnv(runtime),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rt mcp --http did not start: ${stderr}`)), 20_000);
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        const token = /bearer token: (\S+)/.exec(stderr)?.[1];
        resolve({
          url: m[1],
          token,
          tokenFile: /token file: (\S+)/.exec(stderr)?.[1],
          auth: token ? { authorization: `Bearer ${token}` } : {},
          child,
          stderr: () => stderr,
          stop: async () => {
            child.kill("SIGTERM");
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`rt mcp --http exited (${code}) before listening: ${stderr}`));
    });
  });
}

/** An SDK client connected to an HTTP server. */
export async function connectHttp(
  url: string,
  opts: ClientOptions = {},
): Promise<{ client: Client; setRoots: (dirs: string[]) => Promise<void> }> {
  const made = makeClient(opts);
  const requestInit = opts.token ? { headers: { Authorization: `Bearer ${opts.token}` } } : undefined;
  await made.client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  return made;
}

/** The text of a tool result. */
export function text(result: unknown): string {
  const r = result as CallToolResult;
  return r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** Calls a tool and returns {isError, text}. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; text: string; result: CallToolResult }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { isError: result.isError === true, text: text(result), result };
}
