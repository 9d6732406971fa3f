// What sql_query, sql_tables and sql_describe do, shared: choose the
// connection, check the statement, load the engine's driver, run. Returns data
// (or throws DbError / ToolError); the SQL tools turn it into results
// (tools/shared/sqlResults.ts).
import type { Workspace } from "../workspace/workspace.js";
import { SQL_DEFAULT_ROWS, SQL_MAX_ROWS, SQL_TABLES_MAX_ROWS } from "../base/limits.js";
import { resolveConnection, type ConnectionSpec } from "./connections.js";
import { checkSql } from "./checkSql.js";
import { DbError, type Driver, type QueryResult } from "./driver.js";
import { openDriver } from "./openDriver.js";

type WorkspaceLike = Pick<Workspace, "root" | "env">;

/** A statement rt's own check refused, before any connection was made. */
export class SqlRefusal extends DbError {
  constructor(
    readonly reason: string,
    readonly spec: ConnectionSpec,
  ) {
    super(`refused: ${reason}`, "refused");
    this.name = "SqlRefusal";
  }
}

/** What a database call gave back, with the connection it went to. */
export interface DbAnswer {
  spec: ConnectionSpec;
  result: QueryResult;
}

/** A failure of the database or its driver, with the connection it happened on. */
export class DbCallError extends Error {
  constructor(
    readonly cause: DbError,
    readonly spec: ConnectionSpec,
  ) {
    super(cause.message);
    this.name = "DbCallError";
  }
}

/** Runs `fn` with the connection's driver; a DbError comes back as DbCallError naming the connection. */
async function withDriver<T>(spec: ConnectionSpec, fn: (driver: Driver) => Promise<T>): Promise<T> {
  try {
    return await fn(await openDriver(spec));
  } catch (e) {
    if (e instanceof DbError) throw new DbCallError(e, spec);
    throw e;
  }
}

/** A LIKE pattern from what a user typed: * and ? are accepted as % and _; without % it matches names containing it. */
export function likePattern(p: string | undefined): string | undefined {
  if (p === undefined || p.trim() === "") return undefined;
  const s = p.trim().replace(/\*/g, "%").replace(/\?/g, "_");
  return s.includes("%") ? s : `%${s}%`;
}

/** Runs one read-only query: throws SqlRefusal when rt's check refuses it, DbCallError when the database fails. */
export async function runQuery(
  ws: WorkspaceLike,
  args: { connection?: string; sql: string; limit?: number },
  signal?: AbortSignal,
): Promise<DbAnswer & { limit: number; elapsedMs: number }> {
  const spec = resolveConnection(ws, args.connection);
  const check = await checkSql(args.sql, spec.engine);
  if (!check.ok) throw new SqlRefusal(check.reason, spec);
  const limit = args.limit ?? SQL_DEFAULT_ROWS;
  const started = Date.now();
  // Oracle's driver takes the statement without its terminating semicolon; the others get the text as sent,
  // so that the engine itself refuses anything rt's reading might have missed.
  const sql = spec.engine === "oracle" ? check.statement : args.sql;
  const result = await withDriver(spec, (driver) => driver.run({ sql, limit, timeoutMs: spec.timeoutMs, signal }));
  return { spec, result, limit, elapsedMs: Date.now() - started };
}

/** The tables and views (optionally matching a pattern); throws DbCallError when the database fails. */
export async function listTables(
  ws: WorkspaceLike,
  args: { connection?: string; pattern?: string },
  signal?: AbortSignal,
): Promise<DbAnswer> {
  const spec = resolveConnection(ws, args.connection);
  const result = await withDriver(spec, (driver) => {
    const q = driver.tablesQuery(likePattern(args.pattern));
    return driver.run({ sql: q.sql, params: q.params, limit: SQL_TABLES_MAX_ROWS, timeoutMs: spec.timeoutMs, signal });
  });
  return { spec, result };
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

/** Up to five table names close to `table` (by edit distance, or containing it). */
async function suggestions(
  driver: Driver,
  spec: ConnectionSpec,
  table: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const wanted = table.split(".").pop()!.replace(/"/g, "").toLowerCase();
  try {
    const q = driver.tablesQuery(undefined);
    const res = await driver.run({
      sql: q.sql,
      params: q.params,
      limit: SQL_TABLES_MAX_ROWS,
      timeoutMs: spec.timeoutMs,
      signal,
    });
    const nameCol = res.columns.findIndex((c) => c.toLowerCase() === "name");
    const schemaCol = res.columns.findIndex((c) => c.toLowerCase() === "schema");
    if (nameCol < 0) return [];
    return res.rows
      .map((r) => {
        const name = String(r[nameCol]);
        const n = name.toLowerCase();
        const d = n.includes(wanted) || wanted.includes(n) ? 0 : editDistance(n, wanted);
        return { label: schemaCol >= 0 ? `${r[schemaCol]}.${name}` : name, d };
      })
      .filter((x) => x.d <= Math.max(2, Math.floor(wanted.length / 3)))
      .sort((a, b) => a.d - b.d)
      .slice(0, 5)
      .map((x) => x.label);
  } catch {
    return [];
  }
}

/** A table's columns; `unreadableName` when the name cannot be read, `similar` (maybe empty) when no such table exists. */
export async function describeTable(
  ws: WorkspaceLike,
  args: { connection?: string; table: string },
  signal?: AbortSignal,
): Promise<DbAnswer | { spec: ConnectionSpec; unreadableName: true } | { spec: ConnectionSpec; similar: string[] }> {
  const spec = resolveConnection(ws, args.connection);
  return withDriver(spec, async (driver) => {
    const q = driver.describeQuery(args.table);
    if (!q) return { spec, unreadableName: true as const };
    const result = await driver.run({
      sql: q.sql,
      params: q.params,
      limit: SQL_MAX_ROWS,
      timeoutMs: spec.timeoutMs,
      signal,
    });
    if (result.rows.length === 0) return { spec, similar: await suggestions(driver, spec, args.table, signal) };
    return { spec, result };
  });
}
