// One running language server: a child process spoken to over stdio with
// vscode-languageserver-protocol (the JSON-RPC framing, the message types and
// the request bookkeeping are the library's). This module knows the LSP
// lifecycle (initialize, open/change documents, diagnostics, shutdown); which
// server runs for which file, idle shutdown and restarts are manager.ts's.
import { spawn, type ChildProcess } from "node:child_process";
import { pathToFileURL } from "node:url";
import type * as Protocol from "vscode-languageserver-protocol";
import type { Diagnostic, InitializeResult } from "vscode-languageserver-protocol";
import {
  LSP_DIAGNOSTICS_SETTLE_MS,
  LSP_UNCHANGED_QUIET_MS,
  LSP_SHUTDOWN_GRACE_MS,
  LSP_STDERR_KEEP_CHARS,
} from "../base/limits.js";
import { ToolError } from "../base/errors.js";

type Lsp = typeof import("vscode-languageserver-protocol/node.js");

let lspModule: Promise<Lsp> | undefined;
/** The protocol library, loaded on the first server start. */
export function loadProtocol(): Promise<Lsp> {
  return (lspModule ??= import("vscode-languageserver-protocol/node.js").then(
    (m) => ((m as { default?: Lsp }).default ?? m) as Lsp,
  ));
}

/** How to start a server: the program and its arguments (already resolved), and what it is for. */
export interface ServerLaunch {
  /** "typescript", "python", or the configured name. */
  name: string;
  /** Told of the client as soon as it exists (before its handshake), so that a caller can detach it while it starts. */
  onCreate?: (client: LspClient) => void;
  command: string;
  args: string[];
  /** Sent as initializationOptions. */
  initializationOptions?: unknown;
  /** Wraps the command (the read-only sandbox): returns the program and arguments to spawn instead. */
  wrap?: (command: string, args: string[]) => { command: string; args: string[]; extraStdio?: Buffer };
  env?: NodeJS.ProcessEnv;
}

interface DocState {
  version: number;
  text: string;
  /** Publishes seen for this document since rt last changed it. */
  publishedSinceChange: number;
  /** When the last publish arrived (performance.now()). */
  lastPublish: number;
  /** When rt last changed it. */
  changedAt: number;
  /** It had no diagnostics when rt last changed it. */
  emptyBeforeChange: boolean;
}

export function fileUri(abs: string): string {
  return pathToFileURL(abs).href;
}

export class LspClient {
  private child!: ChildProcess;
  private conn!: Protocol.ProtocolConnection;
  private docs = new Map<string, DocState>();
  private diagnostics = new Map<string, Diagnostic[]>();
  private listeners = new Set<() => void>();
  private stderrTail = "";
  /** When the server last published diagnostics for any document. */
  private lastAnyPublish = 0;
  private exitHandlers: Array<(why: string) => void> = [];
  capabilities: InitializeResult["capabilities"] = {};
  /** Set once the process is gone (crashed, killed or shut down): why. */
  dead: string | undefined;
  /** performance.now() of the last use: the manager's idle clock. */
  lastUsed = performance.now();
  /** Requests and diagnostics waits under way: a busy server is never idle. */
  busy = 0;
  readonly startedAt = performance.now();
  pid: number | undefined;

  private constructor(
    readonly launch: ServerLaunch,
    readonly root: string,
  ) {}

  /** Spawns the server and runs the LSP handshake; throws ToolError naming the server when it cannot start. */
  static async start(launch: ServerLaunch, root: string, timeoutMs: number): Promise<LspClient> {
    const client = new LspClient(launch, root);
    launch.onCreate?.(client);
    await client.spawnAndInitialize(timeoutMs);
    return client;
  }

  private async spawnAndInitialize(timeoutMs: number): Promise<void> {
    const lsp = await loadProtocol();
    const run = this.launch.wrap
      ? this.launch.wrap(this.launch.command, this.launch.args)
      : { command: this.launch.command, args: this.launch.args };
    const extra = "extraStdio" in run && run.extraStdio ? run.extraStdio : undefined;
    const child = spawn(run.command, run.args, {
      cwd: this.root,
      env: this.launch.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe", ...(extra ? (["pipe"] as const) : [])],
    });
    this.child = child;
    this.pid = child.pid;
    if (this.detached) this.unref();
    if (extra) {
      const fd3 = child.stdio[3] as import("node:stream").Writable;
      fd3.on("error", () => {});
      fd3.end(extra);
    }
    child.stderr!.on("data", (c: Buffer) => {
      this.stderrTail = (this.stderrTail + c.toString("utf8")).slice(-LSP_STDERR_KEEP_CHARS);
    });
    const spawned = new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (e) =>
        reject(new ToolError(`${this.launch.name} language server did not start: ${e.message} (${run.command})`)),
      );
    });
    child.once("exit", (code, signal) =>
      this.markDead(
        `exited with ${signal ?? `code ${code}`}${this.stderrTail.trim() ? `: ${lastLines(this.stderrTail)}` : ""}`,
      ),
    );
    // Writes to a server that died are reported by the exit above, not as an unhandled error.
    child.stdin!.on("error", () => {});
    await spawned;
    this.conn = lsp.createProtocolConnection(
      new lsp.StreamMessageReader(child.stdout!),
      new lsp.StreamMessageWriter(child.stdin!),
    );
    this.conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
      this.diagnostics.set(p.uri, p.diagnostics);
      this.lastAnyPublish = performance.now();
      const doc = this.docs.get(p.uri);
      if (doc) {
        doc.publishedSinceChange++;
        doc.lastPublish = performance.now();
      }
      for (const l of this.listeners) l();
    });
    // Servers ask the client things; answer so they do not wait (no configuration, no progress UI).
    this.conn.onRequest(lsp.ConfigurationRequest.type, (p) => p.items.map(() => null));
    this.conn.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => null);
    this.conn.onRequest(lsp.RegistrationRequest.type, () => null);
    this.conn.onRequest(lsp.UnregistrationRequest.type, () => null);
    this.conn.onRequest(lsp.ApplyWorkspaceEditRequest.type, () => ({
      applied: false,
      failureReason: "rt applies no edits from language servers",
    }));
    this.conn.onNotification(lsp.LogMessageNotification.type, () => {});
    this.conn.onNotification(lsp.TelemetryEventNotification.type, () => {});
    this.conn.onError(() => {});
    // The exit event says more (the signal, stderr); it usually follows the close at once.
    this.conn.onClose(() => setTimeout(() => this.markDead("closed its connection"), 100).unref());
    this.conn.listen();
    const rootUri = fileUri(this.root);
    const init = await this.request<InitializeResult>(
      lsp.InitializeRequest.type.method,
      {
        // Servers exit when this process is gone (typescript-language-server polls it): inside the
        // sandbox's own PID namespace rt's pid means nothing, so the server would exit at once; there
        // bwrap's --die-with-parent ends it with rt instead.
        processId: this.launch.wrap ? null : process.pid,
        rootUri,
        rootPath: this.root,
        workspaceFolders: [{ uri: rootUri, name: this.root.split("/").pop() || "root" }],
        initializationOptions: this.launch.initializationOptions ?? {},
        capabilities: {
          textDocument: {
            synchronization: { didSave: false, dynamicRegistration: false },
            publishDiagnostics: { relatedInformation: false, versionSupport: true },
            hover: { contentFormat: ["markdown", "plaintext"] },
            definition: { linkSupport: false },
            references: {},
            documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          },
          workspace: { workspaceFolders: true, symbol: {}, configuration: true },
          general: { positionEncodings: ["utf-16"] },
        },
      },
      timeoutMs,
    );
    this.capabilities = init.capabilities ?? {};
    await this.conn.sendNotification(lsp.InitializedNotification.type, {});
  }

  private markDead(why: string): void {
    if (this.dead) return;
    this.dead = why;
    for (const l of this.listeners) l();
    for (const h of this.exitHandlers) h(why);
  }

  onExit(handler: (why: string) => void): void {
    this.exitHandlers.push(handler);
  }

  /** A request, failing with a ToolError after `timeoutMs` (the request is then cancelled) or when the server dies. */
  async request<R>(method: string, params: unknown, timeoutMs: number): Promise<R> {
    if (this.dead)
      throw new ToolError(`${this.launch.name} language server is not running (${this.dead})`, { lsp_dead: true });
    this.lastUsed = performance.now();
    this.busy++;
    const lsp = await loadProtocol();
    const source = new lsp.CancellationTokenSource();
    let timer: NodeJS.Timeout | undefined;
    let unlisten = () => {};
    try {
      return await Promise.race([
        this.conn.sendRequest(method, params, source.token) as Promise<R>,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            source.cancel();
            reject(
              new ToolError(
                `${this.launch.name} language server did not answer ${method} within ${timeoutMs / 1000}s`,
                { lsp_timeout: true },
              ),
            );
          }, timeoutMs);
          this.timers.add(timer);
          if (this.detached) timer.unref();
          const onDeath = () => {
            if (this.dead)
              reject(
                new ToolError(`${this.launch.name} language server stopped during ${method} (${this.dead})`, {
                  lsp_dead: true,
                }),
              );
          };
          this.listeners.add(onDeath);
          unlisten = () => this.listeners.delete(onDeath);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (timer) this.timers.delete(timer);
      unlisten();
      source.dispose();
      this.busy--;
      this.lastUsed = performance.now();
    }
  }

  /** Tells the server the document's current text (opens it the first time). Returns whether anything was sent. */
  async sync(abs: string, text: string, languageId: string): Promise<boolean> {
    const uri = fileUri(abs);
    const lsp = await loadProtocol();
    const doc = this.docs.get(uri);
    if (doc && doc.text === text) return false;
    if (!doc) {
      this.docs.set(uri, {
        version: 1,
        text,
        publishedSinceChange: 0,
        lastPublish: 0,
        changedAt: performance.now(),
        emptyBeforeChange: false,
      });
      await this.conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId, version: 1, text },
      });
    } else {
      doc.version++;
      doc.text = text;
      doc.publishedSinceChange = 0;
      doc.changedAt = performance.now();
      doc.emptyBeforeChange = this.diagnostics.get(uri)?.length === 0;
      this.diagnostics.delete(uri);
      await this.conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version: doc.version },
        contentChanges: [{ text }],
      });
    }
    this.lastUsed = performance.now();
    return true;
  }

  /** Whether rt has opened this document on the server. */
  isOpen(abs: string): boolean {
    return this.docs.has(fileUri(abs));
  }

  /**
   * The diagnostics the server published for the document's current text:
   * waits for a publish after rt's last change, then for `wait.settleMs` (LSP_DIAGNOSTICS_SETTLE_MS)
   * without another (servers publish syntax and then semantic results). A document that had none
   * and published nothing since the change is taken to have none after `wait.quietMs`
   * (LSP_UNCHANGED_QUIET_MS) of silence.
   */
  async diagnosticsOf(
    abs: string,
    timeoutMs: number,
    wait: { settleMs: number; quietMs: number } = {
      settleMs: LSP_DIAGNOSTICS_SETTLE_MS,
      quietMs: LSP_UNCHANGED_QUIET_MS,
    },
  ): Promise<Diagnostic[]> {
    this.busy++;
    try {
      return await this.waitForDiagnostics(abs, timeoutMs, wait.settleMs, wait.quietMs);
    } finally {
      this.busy--;
      this.lastUsed = performance.now();
    }
  }

  private async waitForDiagnostics(
    abs: string,
    timeoutMs: number,
    settleMs: number,
    quietMs: number,
  ): Promise<Diagnostic[]> {
    const uri = fileUri(abs);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (this.dead)
        throw new ToolError(`${this.launch.name} language server stopped (${this.dead})`, { lsp_dead: true });
      const doc = this.docs.get(uri);
      const now = performance.now();
      if (doc && doc.publishedSinceChange > 0 && now - doc.lastPublish >= settleMs)
        return this.diagnostics.get(uri) ?? [];
      // typescript-language-server publishes nothing when a document's diagnostics stay empty:
      // a document that had none, after the server went quiet for a while since the change, still has none.
      const quietSince = doc ? Math.max(doc.changedAt, this.lastAnyPublish) : 0;
      if (doc && doc.publishedSinceChange === 0 && doc.emptyBeforeChange && now - quietSince >= quietMs) return [];
      if (now >= deadline) {
        if (doc && doc.publishedSinceChange > 0) return this.diagnostics.get(uri) ?? [];
        throw new ToolError(
          `${this.launch.name} language server published no diagnostics for the file within ${timeoutMs / 1000}s`,
          { lsp_timeout: true },
        );
      }
      const wait =
        doc && doc.publishedSinceChange > 0
          ? Math.max(1, settleMs - (now - doc.lastPublish))
          : doc?.emptyBeforeChange
            ? Math.max(1, quietMs - (now - quietSince))
            : deadline - now;
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, Math.min(wait, deadline - now));
        function done() {
          clearTimeout(t);
          resolve();
        }
        const l = () => {
          this.listeners.delete(l);
          done();
        };
        this.listeners.add(l);
      });
    }
  }

  /** The diagnostics last published for a document (no waiting), if any were. */
  lastDiagnostics(abs: string): Diagnostic[] | undefined {
    return this.diagnostics.get(fileUri(abs));
  }

  /** shutdown + exit, then a kill if the server lingers. */
  async stop(): Promise<void> {
    if (this.dead) return;
    const lsp = await loadProtocol();
    try {
      await this.request(lsp.ShutdownRequest.type.method, undefined, LSP_SHUTDOWN_GRACE_MS);
      await this.conn.sendNotification(lsp.ExitNotification.type);
    } catch {
      /* it is killed below */
    }
    await new Promise<void>((resolve) => {
      if (this.dead) return resolve();
      const t = setTimeout(() => {
        this.kill();
        resolve();
      }, LSP_SHUTDOWN_GRACE_MS);
      this.onExit(() => {
        clearTimeout(t);
        resolve();
      });
    });
    this.conn.dispose();
  }

  /** Ends the process at once (process exit, a server that will not stop). */
  kill(): void {
    try {
      this.child.kill("SIGKILL");
    } catch {
      /* already gone */
    }
  }

  /** Lets this process exit while the server runs (the CLI): it is killed on exit. */
  private timers = new Set<NodeJS.Timeout>();
  private detached = false;

  /**
   * Keeps rt's process from waiting for this server, even while it still starts (its pipes and
   * the timers of its pending requests): a one-shot command that stopped waiting for it exits.
   */
  detach(): void {
    this.detached = true;
    for (const t of this.timers) t.unref();
    if (this.child) this.unref();
  }

  unref(): void {
    this.child.unref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr])
      (s as unknown as { unref?: () => void } | null)?.unref?.();
  }
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-3).join(" | ");
}
