// OAuth for remote MCP servers (the MCP authorization spec: protected resource
// metadata, authorization server discovery, dynamic client registration,
// PKCE, refresh), through the MCP SDK's own client `auth()`. rt supplies what
// the SDK leaves to the application: where tokens are kept and how the user's
// browser is sent to the authorization page.
//
// - `rt mcp login NAME` runs the browser flow once: rt listens on a loopback
//   port for the redirect, prints the authorization address (and opens a
//   browser where there is a display), checks the `state` it sent, and trades
//   the code for tokens.
// - Tokens live in the user's config directory, `mcp-oauth.json`, mode 0600,
//   keyed by the server's exact URL: a project's `.mcp.json` that names a
//   server "github" but points elsewhere gets no token issued for GitHub.
// - A connection uses the stored tokens; when the server answers 401 the SDK
//   refreshes them with the refresh token and rt stores the new ones. With no
//   stored tokens nothing is registered or sent: the server's status says
//   `rt mcp login NAME`.
import http from "node:http";
import { randomBytes } from "node:crypto";
import path from "node:path";
import fs from "node:fs";
import { spawn } from "node:child_process";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { userConfigDir } from "../base/trustStore.js";
import { MCP_OAUTH_LOGIN_TIMEOUT_MS, CONFIG_FILE_MAX_BYTES } from "../base/limits.js";
import { confinedAt } from "../workspace/confinedFs.js";

/** What rt keeps for one server URL. */
interface StoredServer {
  client_information?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  saved_at?: string;
}

export class OAuthStoreError extends Error {}

export function oauthStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userConfigDir(env), "mcp-oauth.json");
}

/** The key tokens are kept under: the server's URL without a fragment. */
export function serverKey(url: string): string {
  const u = new URL(url);
  u.hash = "";
  return u.href;
}

/** The stored entries by server URL; {} when there is no file. Throws OAuthStoreError when it cannot be read. */
export function readOAuthStore(env: NodeJS.ProcessEnv = process.env): Record<string, StoredServer> {
  const file = oauthStorePath(env);
  let text: string;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) throw new OAuthStoreError(`${file} is not a regular file`);
    if (st.size > CONFIG_FILE_MAX_BYTES) throw new OAuthStoreError(`${file} is over ${CONFIG_FILE_MAX_BYTES} bytes`);
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    if (e instanceof OAuthStoreError) throw e;
    throw new OAuthStoreError(`${file} cannot be read: ${(e as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as { version?: unknown; servers?: unknown };
    if (parsed.version !== 1 || typeof parsed.servers !== "object" || parsed.servers === null)
      throw new Error('expected {"version": 1, "servers": {...}}');
    return parsed.servers as Record<string, StoredServer>;
  } catch (e) {
    throw new OAuthStoreError(`${file} is not rt's token file: ${(e as Error).message}`);
  }
}

function writeOAuthStore(servers: Record<string, StoredServer>, env: NodeJS.ProcessEnv): void {
  const file = oauthStorePath(env);
  const dir = confinedAt(path.dirname(file));
  dir.mkdirs([], 0o700);
  dir.writeAtomic(path.basename(file), `${JSON.stringify({ version: 1, servers }, null, 2)}\n`, { mode: 0o600 });
}

function updateEntry(key: string, env: NodeJS.ProcessEnv, change: (entry: StoredServer) => StoredServer | undefined) {
  const servers = readOAuthStore(env);
  const next = change({ ...(servers[key] ?? {}) });
  if (next === undefined) delete servers[key];
  else servers[key] = { ...next, saved_at: new Date().toISOString() };
  writeOAuthStore(servers, env);
}

/** Whether tokens are stored for this server URL (a connection then offers them). */
export function hasStoredTokens(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    return readOAuthStore(env)[serverKey(url)]?.tokens !== undefined;
  } catch {
    return false;
  }
}

/** Forgets what is stored for the server. False when nothing was. */
export function forgetServer(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const key = serverKey(url);
  const servers = readOAuthStore(env);
  if (!Object.hasOwn(servers, key)) return false;
  delete servers[key];
  writeOAuthStore(servers, env);
  return true;
}

/** The interactive part of a login: where the browser comes back to, and the state rt sent. */
interface LoginFlow {
  redirectUrl: string;
  state: string;
  onAuthorizationUrl(url: URL): void;
}

/**
 * The SDK's OAuthClientProvider over rt's token file. Without a login flow
 * (a plain connection) it never starts an authorization: it says to log in.
 */
export class RtOAuthProvider implements OAuthClientProvider {
  private verifier?: string;
  private readonly key: string;

  constructor(
    readonly serverName: string,
    url: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly login?: LoginFlow,
  ) {
    this.key = serverKey(url);
  }

  private entry(): StoredServer {
    return readOAuthStore(this.env)[this.key] ?? {};
  }

  get redirectUrl(): string {
    const registered = this.entry().client_information as { redirect_uris?: string[] } | undefined;
    return this.login?.redirectUrl ?? registered?.redirect_uris?.[0] ?? "http://127.0.0.1/callback";
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "rt",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return this.login?.state ?? randomBytes(16).toString("hex");
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const info = this.entry().client_information;
    // A client registered for another loopback port cannot receive this login's redirect: register again.
    if (this.login && info && !((info as { redirect_uris?: string[] }).redirect_uris ?? []).includes(this.redirectUrl))
      return undefined;
    return info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    updateEntry(this.key, this.env, (e) => ({ ...e, client_information: info }));
  }

  tokens(): OAuthTokens | undefined {
    return this.entry().tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    updateEntry(this.key, this.env, (e) => ({ ...e, tokens }));
  }

  redirectToAuthorization(url: URL): void {
    if (!this.login)
      throw new Error(
        `MCP server ${this.serverName} needs authorization (its tokens are missing or were refused): run rt mcp login ${this.serverName}`,
      );
    this.login.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no PKCE code verifier: the authorization was not started by this process");
    return this.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier") this.verifier = undefined;
    if (scope === "discovery" || scope === "verifier") return;
    updateEntry(this.key, this.env, (e) => {
      if (scope === "all") return undefined;
      if (scope === "client") delete e.client_information;
      if (scope === "tokens") delete e.tokens;
      return e;
    });
  }
}

/** The provider a connection to `url` uses: undefined when nothing is stored for it (no OAuth then). */
export function connectionAuth(name: string, url: string, env: NodeJS.ProcessEnv): RtOAuthProvider | undefined {
  return hasStoredTokens(url, env) ? new RtOAuthProvider(name, url, env) : undefined;
}

/** Opens `url` in the user's browser where there is one to open (a display, or macOS); never fails. */
function openBrowser(url: string, env: NodeJS.ProcessEnv): boolean {
  const program =
    process.platform === "darwin"
      ? "open"
      : process.platform === "linux" && (env.DISPLAY || env.WAYLAND_DISPLAY)
        ? "xdg-open"
        : undefined;
  if (!program) return false;
  try {
    const child = spawn(program, [url], { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${text}</p>`;

/**
 * Waits on a loopback port for the authorization server's redirect. Resolves
 * with the code once a request carries the expected state; a request with
 * another state or an error is answered and refused.
 */
async function callbackServer(state: string): Promise<{ url: string; code: Promise<string>; close(): void }> {
  let settle!: { resolve(code: string): void; reject(e: Error): void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    if (u.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    const error = u.searchParams.get("error");
    if (u.searchParams.get("state") !== state) {
      res.writeHead(400, { "content-type": "text/html" }).end(PAGE("rt", "This authorization was not started by rt."));
      return;
    }
    if (error) {
      const why = `${error}${u.searchParams.get("error_description") ? `: ${u.searchParams.get("error_description")}` : ""}`;
      res.writeHead(400, { "content-type": "text/html" }).end(PAGE("rt", "The authorization was refused."));
      settle.reject(new Error(`the authorization server refused: ${why}`));
      return;
    }
    const got = u.searchParams.get("code");
    if (!got) {
      res.writeHead(400, { "content-type": "text/html" }).end(PAGE("rt", "No authorization code."));
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(PAGE("rt", "rt is authorized. You can close this tab."));
    settle.resolve(got);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    code,
    close: () => {
      server.closeAllConnections?.();
      server.close();
    },
  };
}

/**
 * `rt mcp login`: the browser flow for one HTTP server. Earlier tokens for the
 * server are dropped first (a login is asked for when they no longer work).
 * `say` gets the lines for the user (the address to open).
 */
export async function mcpLogin(
  server: { name: string; url: string; headers?: Record<string, string> },
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
  timeoutMs = MCP_OAUTH_LOGIN_TIMEOUT_MS,
): Promise<void> {
  const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
  const state = randomBytes(16).toString("hex");
  const callback = await callbackServer(state);
  try {
    updateEntry(serverKey(server.url), env, (e) =>
      e.client_information ? { client_information: e.client_information } : undefined,
    );
    const provider = new RtOAuthProvider(server.name, server.url, env, {
      redirectUrl: callback.url,
      state,
      onAuthorizationUrl: (url) => {
        const opened = openBrowser(url.href, env);
        say(`${opened ? "Opened your browser at" : "Open this address to authorize rt with"} ${server.name}:`);
        say(`  ${url.href}`);
        say(`Waiting for the authorization (rt listens on ${callback.url})...`);
      },
    });
    const fetchFn: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...server.headers, ...(init?.headers as Record<string, string>) } });
    const first = await auth(provider, { serverUrl: server.url, fetchFn });
    if (first === "AUTHORIZED") return;
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      callback.code,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no authorization arrived within ${Math.round(timeoutMs / 1000)} s`)),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    const second = await auth(provider, { serverUrl: server.url, authorizationCode: code, fetchFn });
    if (second !== "AUTHORIZED") throw new Error("the authorization server did not issue tokens");
  } finally {
    callback.close();
  }
}
