// Which workspace a client's tool calls run in: the --root workspace, or for a
// client that offers MCP roots, its first root (asked for before its first
// call, and again after it says its roots changed).
// Workspaces are shared by root across clients (WorkspacePool), so HTTP clients
// working in the same directory share line IDs, views and file locks, as the
// calls of one `rt call --batch` do.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { createWorkspace, type Workspace } from "../../workspace/workspace.js";
import { chooseRoot, type ClientRoot, type RootChoice } from "./roots.js";

export class WorkspacePool {
  private readonly byRoot = new Map<string, Workspace>();

  /** `base` is the --root workspace; others are opened with its options (profile, sandbox...). */
  constructor(readonly base: Workspace) {
    this.byRoot.set(base.root, base);
  }

  /** The workspace for a real directory path (throws a ToolError if it cannot be opened). */
  get(dir: string): Workspace {
    let ws = this.byRoot.get(dir);
    if (!ws) {
      ws = createWorkspace({ ...this.base.options, root: dir });
      this.byRoot.set(ws.root, ws);
    }
    return ws;
  }
}

/** An error as one line; a schema error from the SDK (an invalid answer) as its issues. */
function describeFailure(e: unknown): string {
  const issues = (e as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
  if (Array.isArray(issues))
    return `invalid answer: ${issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`).join("; ")}`;
  return (e as Error).message ?? String(e);
}

/** Where a tool call runs: a workspace and the roots it must refuse, or why there is none. */
export type CallTarget = { workspace: Workspace; refused: string[] } | { error: string };

/** Asks the client for its roots (roots/list). */
export type ListRoots = () => Promise<{ roots: ClientRoot[] }>;

export class McpSession {
  private choice: RootChoice = { kind: "none" };
  /** The client has roots we have not asked for yet (or that changed since we asked). */
  private stale = false;
  private inflight?: Promise<void>;

  constructor(
    private readonly pool: WorkspacePool,
    private readonly log: (line: string) => void,
  ) {}

  /** After the client's initialized notification. */
  clientInitialized(server: Server): void {
    if (server.getClientCapabilities()?.roots) this.stale = true;
  }

  /** notifications/roots/list_changed: ask again before the next call. */
  rootsChanged(): void {
    this.stale = true;
  }

  /**
   * The workspace for a tool call. Roots are asked for from within the call
   * (listRoots sends roots/list as part of that request), not when the client
   * initializes: over Streamable HTTP a request sent then could only travel on
   * the client's optional GET stream, which may not be open yet, and would be
   * lost; a request tied to a call travels on that call's response stream.
   */
  async target(listRoots: ListRoots): Promise<CallTarget> {
    while (this.stale || this.inflight) {
      if (!this.inflight) {
        this.stale = false;
        this.inflight = this.fetchRoots(listRoots).finally(() => (this.inflight = undefined));
      }
      await this.inflight;
    }
    const c = this.choice;
    if (c.kind === "none") return { workspace: this.pool.base, refused: [] };
    if (c.kind === "unusable") return { error: c.error };
    try {
      return { workspace: this.pool.get(c.dir), refused: c.refused };
    } catch (e) {
      return { error: `the client's first root ${c.dir} cannot be opened: ${(e as Error).message}` };
    }
  }

  private async fetchRoots(listRoots: ListRoots): Promise<void> {
    try {
      const { roots } = await listRoots();
      this.choice = chooseRoot(roots);
      this.describeChoice();
    } catch (e) {
      const where = this.choice.kind === "root" ? this.choice.dir : this.pool.base.root;
      this.log(`roots/list failed (${describeFailure(e)}); still serving ${where}`);
    }
  }

  private describeChoice(): void {
    const c = this.choice;
    if (c.kind === "none") this.log(`the client offers no roots; serving --root ${this.pool.base.root}`);
    else if (c.kind === "unusable") this.log(c.error);
    else
      this.log(
        `serving ${c.dir} (the client's first root)${c.refused.length ? `; refusing its other roots: ${c.refused.join(", ")}` : ""}`,
      );
  }
}
