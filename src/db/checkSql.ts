// The one entry point of the read-only SQL check: PostgreSQL statements go to
// its own parser's tree (pgCheck.ts, loaded on first use), the other dialects
// to the lexer (sqlText.ts). Kept apart from both so neither imports the other.
import { checkReadOnlySql, type Dialect, type SqlCheck } from "./sqlText.js";

/**
 * Decides whether `sql` is exactly one plain query in `dialect`, without running it. PostgreSQL
 * statements are read by PostgreSQL's own parser, loaded on first use; the other dialects by the lexer here.
 */
export async function checkSql(sql: string, dialect: Dialect): Promise<SqlCheck> {
  if (dialect === "postgres") return (await import("./pgCheck.js")).checkPostgresSql(sql);
  return checkReadOnlySql(sql, dialect);
}
