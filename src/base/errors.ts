// Errors every layer may throw, at the bottom of the import graph (see
// docs/architecture.md): lower layers (workspace, shell, db) throw them and
// the tool policy turns them into failed results, so they cannot live with
// the tools.

/** An error a handler throws on purpose; the tool policy turns it into a failed result. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ToolError";
  }
}
