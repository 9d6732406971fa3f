// What sql_query, sql_tables and sql_describe do, shared: choose the
// connection, check the statement, load the engine's driver, run, format.
import type { Workspace } from "../workspace/workspace.js";
import { fail, ok, type ToolResult } from "../tools/types.js";
import { SQL_DEFAULT_ROWS, SQL_MAX_ROWS, SQL_TABLES_MAX_ROWS } from "../limits.js";
import { resolveConnection, describeTarget, type ConnectionSpec } from "./connections.js";
import { checkSql } from "./sqlText.js";
import { DbError, openDriver, type Driver, type QueryResult } from "./driver.js";
import { asciiTable } from "./format.js";

type WorkspaceLike = Pick<Workspace, "root" | "env">;

function meta(spec: ConnectionSpec): Record<string, unknown> {
  return { connection: spec.name, engine: spec.engine };
}

function dbFailure(e: unknown, spec: ConnectionSpec): ToolResult {
  if (e instanceof DbError) {
    return fail(e.message, { ...meta(spec), kind: e.kind, ...(e.kind === "refused" ? { refused_by: spec.engine } : {}), ...(e.code ? { code: e.code } : {}) });
  }
  throw e;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function render(res: QueryResult, limit: number, what = "row"): string {
  if (res.columns.length === 0) return "(the statement returned no result set)";
  const table = asciiTable(res.columns, res.rows);
  const note = res.more
    ? `${plural(res.rows.length, what)} shown; more exist (limit ${limit}). Pass a higher limit (at most ${SQL_MAX_ROWS}) or narrow the query (WHERE, LIMIT, aggregates).`
    : `(${plural(res.rows.length, what)})`;
  return `${table}\n${note}`;
}

/** A LIKE pattern from what a user typed: * and ? are accepted as % and _; without % it matches names containing it. */
export function likePattern(p: string | undefined): string | undefined {
  if (p === undefined || p.trim() === "") return undefined;
  const s = p.trim().replace(/\*/g, "%").replace(/\?/g, "_");
  return s.includes("%") ? s : `%${s}%`;
}

export async function sqlQuery(ws: WorkspaceLike, args: { connection?: string; sql: string; limit?: number }, signal?: AbortSignal): Promise<ToolResult> {
  const spec = resolveConnection(ws, args.connection);
  const check = await checkSql(args.sql, spec.engine);
  if (!check.ok) return fail(`refused: ${check.reason}`, { ...meta(spec), kind: "refused", refused_by: "rt" });
  const limit = args.limit ?? SQL_DEFAULT_ROWS;
  const started = Date.now();
  let res: QueryResult;
  try {
    const driver = await openDriver(spec);
    // Oracle's driver takes the statement without its terminating semicolon; the others get the text as sent,
    // so that the engine itself refuses anything rt's reading might have missed.
    const sql = spec.engine === "oracle" ? check.statement : args.sql;
    res = await driver.run({ sql, limit, timeoutMs: spec.timeoutMs, signal });
  } catch (e) {
    return dbFailure(e, spec);
  }
  return ok(render(res, limit), {
    ...meta(spec),
    columns: res.columns,
    rows: res.rows,
    row_count: res.rows.length,
    more: res.more,
    limit,
    elapsed_ms: Date.now() - started,
  });
}

export async function sqlTables(ws: WorkspaceLike, args: { connection?: string; pattern?: string }, signal?: AbortSignal): Promise<ToolResult> {
  const spec = resolveConnection(ws, args.connection);
  let res: QueryResult;
  try {
    const driver = await openDriver(spec);
    const q = driver.tablesQuery(likePattern(args.pattern));
    res = await driver.run({ sql: q.sql, params: q.params, limit: SQL_TABLES_MAX_ROWS, timeoutMs: spec.timeoutMs, signal });
  } catch (e) {
    return dbFailure(e, spec);
  }
  if (res.rows.length === 0) {
    const where = `${spec.name} (${spec.engine}, ${describeTarget(spec)})`;
    return ok(args.pattern ? `no table or view matches "${args.pattern}" on ${where}` : `no tables or views on ${where}`, { ...meta(spec), tables: [], more: false });
  }
  return ok(render(res, SQL_TABLES_MAX_ROWS, "table"), { ...meta(spec), columns: res.columns, tables: res.rows, more: res.more });
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
async function suggestions(driver: Driver, spec: ConnectionSpec, table: string, signal?: AbortSignal): Promise<string[]> {
  const wanted = table.split(".").pop()!.replace(/"/g, "").toLowerCase();
  try {
    const q = driver.tablesQuery(undefined);
    const res = await driver.run({ sql: q.sql, params: q.params, limit: SQL_TABLES_MAX_ROWS, timeoutMs: spec.timeoutMs, signal });
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

export async function sqlDescribe(ws: WorkspaceLike, args: { connection?: string; table: string }, signal?: AbortSignal): Promise<ToolResult> {
  const spec = resolveConnection(ws, args.connection);
  let res: QueryResult;
  let driver: Driver;
  try {
    driver = await openDriver(spec);
    const q = driver.describeQuery(args.table);
    if (!q) {
      return fail(`cannot read the table name "${args.table}": give NAME or SCHEMA.NAME, with double quotes around names that need them`, meta(spec));
    }
    res = await driver.run({ sql: q.sql, params: q.params, limit: SQL_MAX_ROWS, timeoutMs: spec.timeoutMs, signal });
  } catch (e) {
    return dbFailure(e, spec);
  }
  if (res.rows.length === 0) {
    const near = await suggestions(driver, spec, args.table, signal);
    return fail(
      `table or view "${args.table}" not found on connection ${spec.name} (${spec.engine})${near.length ? `; similar names: ${near.join(", ")}` : ""}. sql_tables lists them`,
      meta(spec),
    );
  }
  return ok(`${args.table}\n${render(res, SQL_MAX_ROWS, "column")}`, { ...meta(spec), table: args.table, columns: res.columns, rows: res.rows });
}
