// How the SQL tools show what the database layer (db/service.ts) returned:
// an ASCII table with a note on rows, and failures as results naming the
// connection and who refused.
import { SQL_MAX_ROWS } from "../../base/limits.js";
import { plural } from "../../base/text.js";
import type { ConnectionSpec } from "../../db/connections.js";
import type { QueryResult } from "../../db/driver.js";
import { asciiTable } from "../../db/format.js";
import { DbCallError, SqlRefusal } from "../../db/service.js";
import { fail, type ToolResult } from "../types.js";

export function connectionMeta(spec: ConnectionSpec): Record<string, unknown> {
  return { connection: spec.name, engine: spec.engine };
}

/** The rows as a table, with how many were shown and whether more exist. */
export function renderRows(res: QueryResult, limit: number, what = "row"): string {
  if (res.columns.length === 0) return "(the statement returned no result set)";
  const table = asciiTable(res.columns, res.rows);
  const note = res.more
    ? `${plural(res.rows.length, what)} shown; more exist (limit ${limit}). Pass a higher limit (at most ${SQL_MAX_ROWS}) or narrow the query (WHERE, LIMIT, aggregates).`
    : `(${plural(res.rows.length, what)})`;
  return `${table}\n${note}`;
}

/** Runs a database call; rt's refusals and the database's failures become failed results, anything else is thrown on. */
export async function sqlResult<T>(call: () => Promise<T>, show: (answer: T) => ToolResult): Promise<ToolResult> {
  let answer: T;
  try {
    answer = await call();
  } catch (e) {
    if (e instanceof SqlRefusal)
      return fail(e.message, { ...connectionMeta(e.spec), kind: "refused", refused_by: "rt" });
    if (e instanceof DbCallError) {
      const { cause, spec } = e;
      return fail(cause.message, {
        ...connectionMeta(spec),
        kind: cause.kind,
        ...(cause.kind === "refused" ? { refused_by: spec.engine } : {}),
        ...(cause.code ? { code: cause.code } : {}),
      });
    }
    throw e;
  }
  return show(answer);
}
