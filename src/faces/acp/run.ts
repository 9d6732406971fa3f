// `rt acp`: rt's agent for editors that speak the Agent Client Protocol (Zed,
// JetBrains IDEs, Neovim's CodeCompanion and avante, VS Code extensions), over
// stdio with the official SDK. The editor starts rt, opens sessions in a
// folder, sends prompts, and is sent the agent's stream as `session/update`s:
// message and thought chunks, tool calls with their kind, locations and
// status, edits as diffs, the todo list as a plan, the current mode. Calls
// that need approval are asked through `session/request_permission`.
//
// Everything the other faces guarantee holds: each session's folder is a
// workspace like any other (its own configuration applies as far as its trust
// allows), tools run through the same policy, and the approval modes decide
// what is asked. Standard output belongs to the protocol; rt's own messages go
// to standard error.
import fs from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import type { Workspace } from "../../workspace/workspace.js";
import { createWorkspace } from "../../workspace/workspace.js";
import type { Io } from "../../ui/io.js";
import { setupAgent, SetupError, type Flags } from "../../ui/agentSetup.js";
import { APPROVAL_MODES, type ApprovalMode, type ApprovalReply, type ApprovalRequest } from "../../agent/approval.js";
import type { Agent } from "../../agent/loop.js";
import type { AgentStreamEvent } from "../../agent/events.js";
import type { ChatImage } from "../../agent/providers/types.js";
import { SessionLog, SessionError } from "../../agent/session.js";
import { Journal } from "../../workspace/journal.js";
import { fitImage, imageInfo } from "../../parsers/image.js";
import { providerImageLimits } from "../../agent/imageInput.js";
import { ACP_CLOCK_SLACK_MS, ACP_DIFF_MAX_BYTES, ACP_EMBEDDED_MAX_CHARS } from "../../base/limits.js";
import {
  ACP_MODES,
  eventUpdates,
  stopReasonOf,
  toolKind,
  toolLocations,
  toolTitle,
  type AcpUpdate,
} from "./updates.js";
import type { McpServerConfig } from "../../mcpClient/config.js";
import { editorTerminal, TerminalLinks } from "./terminal.js";
import { loadConfig } from "../../base/config.js";
import { loadAgentSettings } from "../../agent/settings.js";
import { modelsDir } from "../../agent/providers/localModels.js";

interface AcpSession {
  agent: Agent;
  ws: Workspace;
  /** Bash calls and the editor terminals they run in (when the editor offers terminals). */
  terminals?: TerminalLinks;
  /** The running prompt's controller (session/cancel aborts it). */
  running?: AbortController;
  close: () => Promise<void>;
}

/** What the editor said it can do, at initialize. */
interface ClientAbilities {
  readTextFile: boolean;
  writeTextFile: boolean;
  terminal: boolean;
}

export async function runAcp(launch: Workspace, flags: Flags, io: Io, version: string): Promise<number> {
  const sessions = new Map<string, AcpSession>();
  let abilities: ClientAbilities = { readTextFile: false, writeTextFile: false, terminal: false };
  const log = (line: string) => io.stderr(`rt acp: ${line}\n`);

  const app = acp.agent({ name: "rt" });

  app.onRequest("initialize", ({ params }) => {
    const fsCaps = params.clientCapabilities?.fs;
    abilities = {
      readTextFile: fsCaps?.readTextFile === true,
      writeTextFile: fsCaps?.writeTextFile === true,
      terminal: params.clientCapabilities?.terminal === true,
    };
    return {
      // The version the client asked for when rt speaks it, else rt's own (the client decides whether it can go on).
      protocolVersion: Math.min(params.protocolVersion, acp.PROTOCOL_VERSION),
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: false },
      },
      agentInfo: { name: "rt", title: "rt", version },
      authMethods: [],
    };
  });

  /** Opens a workspace and an agent for the folder the editor names; `resume` continues a saved session. */
  const open = async (
    client: acp.AgentContext,
    cwd: string,
    servers: acp.McpServer[],
    resume?: string,
  ): Promise<{ id: string; session: AcpSession }> => {
    if (!path.isAbsolute(cwd))
      throw acp.RequestError.invalidParams({ cwd }, `cwd must be an absolute path, not ${JSON.stringify(cwd)}`);
    let isDir = false;
    try {
      isDir = fs.statSync(cwd).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) throw acp.RequestError.invalidParams({ cwd }, `cwd ${cwd} is not a directory`);
    // The editor's unsaved text of the files a tool is about to read or edit (when the editor can say).
    const editorBuffers = abilities.readTextFile ? new Map<string, Buffer>() : undefined;
    const holder: { id?: string } = {};
    // A bash call's terminal is shown inside the call as soon as both are known.
    const terminals = abilities.terminal
      ? new TerminalLinks((toolCallId, terminalId) => {
          void client
            .notify("session/update", {
              sessionId: holder.id!,
              update: { sessionUpdate: "tool_call_update", toolCallId, content: [{ type: "terminal", terminalId }] },
            })
            .catch(() => undefined);
        })
      : undefined;
    const ws = createWorkspace({
      ...launch.options,
      root: cwd,
      cwd,
      env: launch.env,
      ...(editorBuffers ? { editorBuffers } : {}),
      ...(terminals ? { terminal: editorTerminal(client, () => holder.id!, terminals) } : {}),
    });
    const approve = async (req: ApprovalRequest): Promise<ApprovalReply> =>
      askPermission(client, holder.id!, req, ws.root);
    const beforeTool = editorBuffers
      ? (_tool: string, args: unknown) => syncBuffers(client, holder.id!, ws.root, args, editorBuffers)
      : undefined;
    let setup;
    try {
      setup = await setupAgent(
        ws,
        { ...flags, ...(resume ? { resume } : {}), continue: undefined },
        { approve, ...(beforeTool ? { beforeTool } : {}) },
      );
    } catch (e) {
      if (e instanceof SetupError) throw acp.RequestError.internalError({ reason: e.message }, e.message);
      throw e;
    }
    const agent = setup.agent;
    holder.id = agent.sessionId;
    const mcp = await startEditorMcpServers(ws, servers, log);
    const session: AcpSession = {
      agent,
      ws,
      ...(terminals ? { terminals } : {}),
      close: async () => {
        agent.close();
        await mcp();
      },
    };
    sessions.set(agent.sessionId, session);
    return { id: agent.sessionId, session };
  };

  const modeState = (agent: Agent) => ({
    currentModeId: agent.approvalMode,
    availableModes: ACP_MODES.map((m) => ({ ...m })),
  });
  const modelOption = (agent: Agent, ws: Workspace) => ({
    id: "model",
    name: "Model",
    category: "model",
    type: "select" as const,
    currentValue: agent.currentModel,
    options: modelMenu(agent, ws).map((m) => ({ value: m, name: m })),
  });

  const announce = async (client: acp.AgentContext, id: string) => {
    const commands = await slashCommandsOf(sessions.get(id)!.ws);
    await client.notify("session/update", {
      sessionId: id,
      update: { sessionUpdate: "available_commands_update", availableCommands: commands },
    });
  };

  app.onRequest("session/new", async ({ params, client }) => {
    const { id, session } = await open(client, params.cwd, params.mcpServers ?? []);
    setImmediate(
      () => void announce(client, id).catch((e) => log(`could not send the slash commands: ${(e as Error).message}`)),
    );
    return { sessionId: id, modes: modeState(session.agent), configOptions: [modelOption(session.agent, session.ws)] };
  });

  app.onRequest("session/load", async ({ params, client }) => {
    if (sessions.has(params.sessionId))
      throw acp.RequestError.invalidParams({ sessionId: params.sessionId }, "that session is open already");
    // Read first: an unknown id is the client's mistake, said as such before any agent is made.
    let history;
    try {
      history = SessionLog.open(
        createWorkspace({ ...launch.options, root: params.cwd, cwd: params.cwd, env: launch.env }),
        params.sessionId,
      );
    } catch (e) {
      if (e instanceof SessionError) throw acp.RequestError.resourceNotFound(params.sessionId);
      throw e;
    }
    history.log.close();
    const { id, session } = await open(client, params.cwd, params.mcpServers ?? [], params.sessionId);
    for (const update of replayUpdates(
      history.state.messages.map((m) => m.message),
      session.ws.root,
    )) {
      await client.notify("session/update", { sessionId: id, update: update as acp.SessionUpdate });
    }
    setImmediate(() => void announce(client, id).catch(() => undefined));
    return { modes: modeState(session.agent), configOptions: [modelOption(session.agent, session.ws)] };
  });

  app.onRequest("session/set_mode", async ({ params, client }) => {
    const s = sessionOf(sessions, params.sessionId);
    if (!APPROVAL_MODES.includes(params.modeId as ApprovalMode)) {
      throw acp.RequestError.invalidParams(
        { modeId: params.modeId },
        `unknown mode ${JSON.stringify(params.modeId)}; modes: ${APPROVAL_MODES.join(", ")}`,
      );
    }
    s.agent.setApprovalMode(params.modeId as ApprovalMode);
    await client.notify("session/update", {
      sessionId: params.sessionId,
      update: { sessionUpdate: "current_mode_update", currentModeId: params.modeId },
    });
    return {};
  });

  app.onRequest("session/set_config_option", async ({ params }) => {
    const s = sessionOf(sessions, params.sessionId);
    if (params.configId !== "model" || typeof params.value !== "string") {
      throw acp.RequestError.invalidParams(
        { configId: params.configId },
        `unknown option ${JSON.stringify(params.configId)}; rt offers "model"`,
      );
    }
    const { resolveModel } = await import("../../ui/resolveModel.js");
    try {
      const r = await resolveModel(s.ws, { model: params.value });
      s.agent.setModel(r.provider, r.model, r.label);
    } catch (e) {
      throw acp.RequestError.invalidParams({ value: params.value }, (e as Error).message);
    }
    return { configOptions: [modelOption(s.agent, s.ws)] };
  });

  app.onRequest("session/prompt", async ({ params, client }) => {
    const s = sessionOf(sessions, params.sessionId);
    if (s.running)
      throw acp.RequestError.invalidRequest(
        { sessionId: params.sessionId },
        "a prompt is already running in this session; cancel it first",
      );
    const { text, images } = await promptInput(params.prompt, s.ws.root, s.agent.currentModel);
    const controller = new AbortController();
    s.running = controller;
    let last: AgentStreamEvent | undefined;
    // The file each running call names, for the diff its tool_end gets.
    const paths = new Map<string, string>();
    try {
      for await (const ev of s.agent.run(text, { signal: controller.signal, ...(images.length ? { images } : {}) })) {
        const e = ev as AgentStreamEvent;
        if (e.parent_tool_use_id === undefined) last = e;
        if (e.type === "tool_start" && e.name === "bash" && s.terminals) {
          const a = (e.args ?? {}) as { command?: unknown; background?: unknown; run_in_background?: unknown };
          if (typeof a.command === "string" && a.background !== true && a.run_in_background !== true)
            s.terminals.call(e.id, a.command);
        }
        for (const update of eventUpdates(e, s.ws.root)) {
          // A call that ran in a terminal keeps showing it beside its result.
          const terminalId = e.type === "tool_end" ? s.terminals?.linked.get(e.id) : undefined;
          if (terminalId && Array.isArray(update.content))
            update.content = [{ type: "terminal", terminalId }, ...update.content];
          await client.notify("session/update", { sessionId: params.sessionId, update: update as acp.SessionUpdate });
        }
        if (e.type === "tool_start") {
          const file = toolLocations(e.args, s.ws.root)[0]?.path;
          if (file) paths.set(e.id, path.relative(s.ws.root, file).split(path.sep).join("/"));
        }
        const rel = e.type === "tool_end" ? paths.get(e.id) : undefined;
        const changed = e.type === "tool_end" && !/^(No change|Dry run)/.test(e.output);
        if (e.type === "tool_end" && rel && e.success && changed && toolKind(e.name) === "edit") {
          await deliverEdit(
            client,
            params.sessionId,
            s.ws,
            { toolCallId: e.id, rel, startedAt: e.started_at },
            abilities,
          );
        }
      }
    } finally {
      s.running = undefined;
    }
    const stop = controller.signal.aborted ? "cancelled" : stopReasonOf(last);
    if (stop) return { stopReason: stop };
    const message = last?.type === "error" ? last.message : "the agent ended without a result";
    throw acp.RequestError.internalError({ kind: last?.type === "error" ? last.kind : "internal" }, message);
  });

  app.onNotification("session/cancel", ({ params }) => {
    sessions.get(params.sessionId)?.running?.abort();
  });

  const input = Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>;
  const output = Writable.toWeb(process.stdout) as unknown as WritableStream<Uint8Array>;
  const connection = app.connect(acp.ndJsonStream(output, input));
  await connection.closed.catch((e) => log(`connection closed: ${(e as Error).message}`));
  for (const s of sessions.values()) {
    s.running?.abort();
    await s.close().catch(() => undefined);
  }
  return 0;
}

/**
 * The models the editor's menu offers: the session's, the configured ones
 * (`model`, `agent.small_model`), and the local models downloaded
 * (`local/NAME`). Any other `provider/model` can still be set by value.
 */
function modelMenu(agent: Agent, ws: Workspace): string[] {
  const out = [agent.currentModel];
  try {
    const config = loadConfig(ws) as { model?: unknown };
    if (typeof config.model === "string") out.push(config.model);
  } catch {
    /* a broken configuration was said at start; the menu keeps the session's model */
  }
  try {
    const small = loadAgentSettings(ws).smallModel;
    if (small) out.push(small);
  } catch {
    /* as above */
  }
  try {
    for (const f of fs.readdirSync(modelsDir(ws.env)).sort())
      if (f.endsWith(".gguf")) out.push(`local/${f.slice(0, -".gguf".length)}`);
  } catch {
    /* no local models downloaded */
  }
  return [...new Set(out)];
}

function sessionOf(sessions: Map<string, AcpSession>, id: string): AcpSession {
  const s = sessions.get(id);
  if (!s) throw acp.RequestError.resourceNotFound(id);
  return s;
}

/** Asks the editor whether a call may run: allow once, allow always (this session), reject. */
async function askPermission(
  client: acp.AgentContext,
  sessionId: string,
  req: ApprovalRequest,
  root: string,
): Promise<ApprovalReply> {
  const toolCallId = `permission-${permissionCounter++}`;
  const request: acp.RequestPermissionRequest = {
    sessionId,
    toolCall: {
      toolCallId,
      title: req.agent ? `${req.agent}: ${req.summary}` : req.summary,
      kind: toolKind(req.tool),
      status: "pending",
      locations: toolLocations(req.args, root),
      rawInput: req.args,
    },
    options: [
      { optionId: "allow_once", name: "Allow", kind: "allow_once" },
      { optionId: "allow_always", name: `Always allow ${req.tool} in this session`, kind: "allow_always" },
      { optionId: "reject_once", name: "Reject", kind: "reject_once" },
    ],
  };
  const response = await client.request("session/request_permission", request);
  const outcome = response.outcome;
  if (outcome.outcome !== "selected") return { answer: "no", reason: "the editor cancelled the question" };
  if (outcome.optionId === "allow_once") return "yes";
  if (outcome.optionId === "allow_always") return "always";
  return "no";
}
let permissionCounter = 1;

/**
 * After an edit: the change as an ACP diff (the bytes before, from rt's edit
 * journal, and the file now), and, when the editor can write files, the new
 * text sent through `fs/write_text_file`, so its open buffer takes the change
 * (and its undo history records it) instead of finding the file changed on disk.
 */
async function deliverEdit(
  client: acp.AgentContext,
  sessionId: string,
  ws: Workspace,
  call: { toolCallId: string; rel: string; startedAt: number },
  abilities: ClientAbilities,
): Promise<void> {
  let latest;
  try {
    latest = new Journal(ws.state).latest(call.rel);
  } catch {
    return; // the saved copy is gone: no diff to show
  }
  // An entry older than the call is an earlier edit's: this call changed nothing (or rt keeps no state).
  // The call's start is read from the monotonic clock, the entry's time from the wall clock: a second
  // of slack covers their drift (a no-op edit says so in its output and never gets here).
  if (!latest || Date.parse(latest.entry.time) < call.startedAt - ACP_CLOCK_SLACK_MS) return;
  const abs = path.join(ws.root, call.rel);
  let now: Buffer;
  try {
    now = fs.readFileSync(abs);
  } catch {
    return;
  }
  if (now.length > ACP_DIFF_MAX_BYTES || (latest.before?.length ?? 0) > ACP_DIFF_MAX_BYTES) return;
  const newText = now.toString("utf8");
  const update: AcpUpdate = {
    sessionUpdate: "tool_call_update",
    toolCallId: call.toolCallId,
    content: [
      { type: "diff", path: abs, oldText: latest.before === null ? null : latest.before.toString("utf8"), newText },
    ],
  };
  await client.notify("session/update", { sessionId, update: update as acp.SessionUpdate });
  if (abilities.writeTextFile) await client.request("fs/write_text_file", { sessionId, path: abs, content: newText });
}

/**
 * Asks the editor for its text of the file a call names (fs/read_text_file):
 * when it differs from the disk's (unsaved changes), the tool is given the
 * editor's text. Only for files that exist, are UTF-8 and within the edit
 * size; line endings an editor normalised do not count as a change.
 */
async function syncBuffers(
  client: acp.AgentContext,
  sessionId: string,
  root: string,
  args: unknown,
  buffers: Map<string, Buffer>,
): Promise<void> {
  for (const { path: abs } of toolLocations(args, root)) {
    const rel = path.relative(root, abs).split(path.sep).join("/");
    let disk: Buffer;
    try {
      const st = fs.lstatSync(abs);
      if (!st.isFile() || st.size > ACP_DIFF_MAX_BYTES) continue;
      disk = fs.readFileSync(abs);
    } catch {
      continue;
    }
    const diskText = disk.toString("utf8");
    if (!Buffer.from(diskText, "utf8").equals(disk)) continue;
    const { content } = await client.request("fs/read_text_file", { sessionId, path: abs });
    if (typeof content !== "string" || content.replace(/\r\n/g, "\n") === diskText.replace(/\r\n/g, "\n"))
      buffers.delete(rel);
    else buffers.set(rel, Buffer.from(content, "utf8"));
  }
}

/** The prompt's blocks as the agent's input: text as written, files and resources as context, images attached. */
export async function promptInput(
  blocks: readonly acp.ContentBlock[],
  root: string,
  modelLabel: string,
): Promise<{ text: string; images: ChatImage[] }> {
  const parts: string[] = [];
  const images: ChatImage[] = [];
  for (const b of blocks) {
    if (b.type === "text") parts.push(b.text);
    else if (b.type === "resource_link")
      parts.push(`[the user attached ${mentionOf(b.uri, root)}${b.title ? ` (${b.title})` : ""}: read it as needed]`);
    else if (b.type === "resource") {
      const r = b.resource;
      if ("text" in r) {
        const text =
          r.text.length > ACP_EMBEDDED_MAX_CHARS
            ? `${r.text.slice(0, ACP_EMBEDDED_MAX_CHARS)}\n[cut: ${r.text.length} characters in all]`
            : r.text;
        parts.push(`<attached uri="${mentionOf(r.uri, root)}">\n${text}\n</attached>`);
      } else
        parts.push(
          `[the user attached ${mentionOf(r.uri, root)}, binary content (${r.mimeType ?? "unknown type"}) not shown]`,
        );
    } else if (b.type === "image") {
      const bytes = Buffer.from(b.data, "base64");
      const info = await imageInfo("attached image", bytes);
      const fitted = await fitImage(
        "attached image",
        bytes,
        providerImageLimits(modelLabel.slice(0, modelLabel.indexOf("/"))),
        info,
      );
      images.push({ mediaType: fitted.mediaType, data: fitted.data, width: fitted.width, height: fitted.height });
    } else parts.push(`[an ${b.type} attachment rt does not read]`);
  }
  return { text: parts.join("\n"), images };
}

/** A file:// URI inside the root as a path relative to it; anything else as given. */
function mentionOf(uri: string, root: string): string {
  if (!uri.startsWith("file://")) return uri;
  try {
    const abs = new URL(uri).pathname;
    const rel = path.relative(root, decodeURIComponent(abs));
    return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : decodeURIComponent(abs);
  } catch {
    return uri;
  }
}

/** A saved conversation as the updates that show it again (session/load). */
export function replayUpdates(
  messages: ReadonlyArray<import("../../agent/providers/types.js").ChatMessage>,
  root: string,
): AcpUpdate[] {
  const out: AcpUpdate[] = [];
  for (const m of messages) {
    if (m.role === "user")
      out.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: m.content } });
    else if (m.role === "assistant") {
      if (m.reasoning) out.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: m.reasoning } });
      if (m.content) out.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: m.content } });
      for (const c of m.toolCalls ?? []) {
        let args: unknown = c.arguments;
        try {
          args = JSON.parse(c.arguments);
        } catch {
          /* shown as the text the model sent */
        }
        out.push({
          sessionUpdate: "tool_call",
          toolCallId: c.id,
          title: toolTitle(c.name, args),
          kind: toolKind(c.name),
          status: "pending",
          locations: toolLocations(args, root),
          rawInput: args,
        });
      }
    } else if (m.role === "tool") {
      out.push({
        sessionUpdate: "tool_call_update",
        toolCallId: m.toolCallId,
        status: m.isError ? "failed" : "completed",
        content: [{ type: "content", content: { type: "text", text: m.content } }],
      });
    }
  }
  return out;
}

/** The slash commands a session offers: the user's and (once trusted) the project's custom commands. */
async function slashCommandsOf(
  ws: Workspace,
): Promise<Array<{ name: string; description: string; input?: { hint: string } }>> {
  const { loadCustomCommands } = await import("../../extensions/slashCommands.js");
  const loaded = await loadCustomCommands(ws);
  return loaded.commands.map((c) => ({
    name: c.name,
    description: c.description ?? `custom command /${c.name}`,
    ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}),
  }));
}

/**
 * The MCP servers the editor passes with a session: the user's own choice (the
 * editor is the user's), started with the user's configured ones and offered
 * to the agent. Returns how to stop them.
 */
async function startEditorMcpServers(
  ws: Workspace,
  servers: readonly acp.McpServer[],
  log: (s: string) => void,
): Promise<() => Promise<void>> {
  const extra: McpServerConfig[] = [];
  for (const s of servers) {
    if ("type" in s && s.type === "sse") {
      log(`MCP server ${s.name}: the SSE transport is not supported; skipped`);
      continue;
    }
    if ("type" in s && s.type === "http") {
      extra.push({
        name: s.name,
        transport: "http",
        url: s.url,
        headers: Object.fromEntries(s.headers.map((h) => [h.name, h.value])),
        origin: "the editor (ACP session/new)",
      });
    } else if ("command" in s) {
      extra.push({
        name: s.name,
        transport: "stdio",
        command: s.command,
        args: s.args,
        env: Object.fromEntries(s.env.map((e) => [e.name, e.value])),
        origin: "the editor (ACP session/new)",
      });
    }
  }
  const { startMcpClients, mcpOptionsFrom } = await import("../../mcpClient/session.js");
  const { addAgentToolProvider } = await import("../../agent/extensionTools.js");
  const { loadConfig } = await import("../../base/config.js");
  let options = {};
  try {
    options = mcpOptionsFrom(loadConfig(ws) as Record<string, unknown>);
  } catch {
    /* the agent's setup reported configuration errors already */
  }
  const session = await startMcpClients(ws, { ...options, extra });
  for (const st of session.statuses())
    if (st.state === "failed") log(`MCP server ${st.name} failed to start: ${st.error}`);
  const remove = addAgentToolProvider(session.provider);
  return async () => {
    remove();
    await session.close();
  };
}
