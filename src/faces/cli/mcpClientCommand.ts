// `rt mcp list` (the user's MCP servers: state and tool counts) and `rt mcp
// call SERVER TOOL --args JSON` (one tool of one server, through rt's policy).
// `rt mcp` with no subcommand is still rt's own MCP server (run.ts).
import type { Workspace } from "../../workspace/workspace.js";
import type { Io } from "../../ui/io.js";
import { prepareCall, runPreparedCall } from "../../tools/policy.js";
import { loadConfig } from "../../base/config.js";
import { addAgentToolProvider } from "../../agent/extensionTools.js";
import { mcpOptionsFrom, startMcpClients, type McpClientSession } from "../../mcpClient/session.js";
import { qualifiedName } from "../../mcpClient/manager.js";
import { loadMcpServers } from "../../mcpClient/config.js";
import { forgetServer, mcpLogin, oauthStorePath } from "../../mcpClient/oauth.js";

export async function mcpClientCommand(
  ws: Workspace,
  positionals: string[],
  values: Record<string, unknown>,
  io: Io,
): Promise<number> {
  const [sub, ...rest] = positionals;
  if (sub === "list") {
    if (rest.length) return usage(io, `unexpected argument "${rest[0]}"`);
    const session = await startMcpClients(ws);
    try {
      const statuses = session.statuses();
      if (values.json) {
        io.stdout(
          `${JSON.stringify({ servers: statuses.map((s) => ({ name: s.name, transport: s.transport, origin: s.origin, state: s.state, tools: s.tools.map((t) => t.name), ...(s.error ? { error: s.error } : {}) })), problems: session.problems, ...(session.untrustedProjectFile ? { untrusted_project_file: session.untrustedProjectFile } : {}) }, null, 2)}\n`,
        );
      } else {
        const lines = statuses.map(
          (s) =>
            `${s.name.padEnd(20)} ${s.transport.padEnd(5)} ${s.state.padEnd(9)} ${String(s.tools.length).padStart(3)} tool(s)  ${s.origin}${s.error ? `\n    error: ${s.error}` : ""}`,
        );
        if (!statuses.length)
          lines.push(
            "no MCP servers configured (.mcp.json in a trusted project, ~/.config/rt/mcp.json, or mcpServers in rt's configuration)",
          );
        for (const p of session.problems)
          lines.push(`problem: ${p.origin}${p.server ? ` (${p.server})` : ""}: ${p.message}`);
        if (session.untrustedProjectFile)
          lines.push(`not read: ${session.untrustedProjectFile}: the folder is not trusted (rt trust)`);
        io.stdout(`${lines.join("\n")}\n`);
      }
      return statuses.some((s) => s.state === "failed") || session.problems.length ? 1 : 0;
    } finally {
      await session.close();
    }
  }
  if (sub === "call") {
    if (rest.length !== 2)
      return usage(io, "rt mcp call takes a server and a tool: rt mcp call SERVER TOOL --args JSON");
    const [server, tool] = rest;
    let args: unknown = {};
    if (typeof values.args === "string" && values.args.trim() !== "") {
      try {
        args = JSON.parse(values.args);
      } catch (e) {
        return usage(io, `--args is not valid JSON: ${(e as Error).message}`);
      }
    }
    const session = await startMcpClients(ws, { only: [server] });
    try {
      const status = session.statuses()[0];
      if (!status) {
        io.stdout(
          `${JSON.stringify({ success: false, output: "", error: `no MCP server named ${server} (rt mcp list shows them)`, error_type: "usage" })}\n`,
        );
        return 2;
      }
      if (status.state !== "connected") {
        io.stdout(
          `${JSON.stringify({ success: false, output: "", error: `MCP server ${server} failed to start: ${status.error}`, error_type: "tool" })}\n`,
        );
        return 1;
      }
      const name = qualifiedName(server, tool);
      const prepared = prepareCall(ws, name, args, {
        find: (n) => session.tools.get(n),
        names: () => [...session.tools.keys()],
      });
      const result = prepared.ok ? await runPreparedCall(prepared.call) : prepared.refusal;
      io.stdout(`${JSON.stringify(result)}\n`);
      return result.success ? 0 : result.error_type === "usage" ? 2 : 1;
    } finally {
      await session.close();
    }
  }
  if (sub === "login" || sub === "logout") {
    if (rest.length !== 1) return usage(io, `rt mcp ${sub} takes one server name: rt mcp ${sub} SERVER`);
    const load = await loadMcpServers(ws);
    const names = load.servers.map((s) => s.name);
    const server = load.servers.find((s) => s.name === rest[0]);
    if (!server)
      return usage(
        io,
        `no MCP server named ${rest[0]}; configured: ${names.join(", ") || "none"}${load.untrustedProjectFile ? ` (not read: ${load.untrustedProjectFile}, the folder is not trusted)` : ""}`,
      );
    if (server.transport === "stdio")
      return usage(io, `${server.name} is a local (stdio) server: OAuth is for servers reached by URL`);
    try {
      if (sub === "logout") {
        const had = forgetServer(server.url, ws.env);
        io.stdout(`${had ? "logged out of" : "no stored authorization for"} ${server.name} (${server.url})\n`);
        return 0;
      }
      await mcpLogin(server, ws.env, (line) => io.stderr(`${line}\n`));
      io.stdout(`logged in to ${server.name} (${server.url}); tokens saved in ${oauthStorePath(ws.env)}\n`);
      return 0;
    } catch (e) {
      io.stderr(`rt mcp ${sub} ${server.name}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  return usage(
    io,
    `unknown subcommand "${sub}": rt mcp list | rt mcp call SERVER TOOL --args JSON | rt mcp login SERVER | rt mcp logout SERVER | rt mcp (serve rt's tools)`,
  );
}

function usage(io: Io, message: string): number {
  io.stderr(`rt mcp: ${message}\n`);
  return 2;
}

/** The user's MCP servers for an agent command (rt run, rt chat): connected, their tools offered to the agent. Close it when the command ends. */
export async function agentMcpClients(ws: Workspace, io: Io): Promise<McpClientSession> {
  let options = {};
  try {
    options = mcpOptionsFrom(loadConfig(ws) as Record<string, unknown>);
  } catch {
    /* the agent command reports configuration errors itself */
  }
  const session = await startMcpClients(ws, options);
  for (const s of session.statuses())
    if (s.state === "failed") io.stderr(`rt: MCP server ${s.name} failed to start: ${s.error}\n`);
  for (const p of session.problems)
    io.stderr(`rt: MCP configuration ${p.origin}${p.server ? ` (${p.server})` : ""}: ${p.message}\n`);
  const remove = addAgentToolProvider(session.provider);
  const close = session.close.bind(session);
  session.close = async () => {
    remove();
    await close();
  };
  return session;
}
