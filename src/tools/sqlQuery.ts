import * as z from "zod";
import { defineTool, ok } from "./types.js";
import { SQL_DEFAULT_ROWS, SQL_MAX_ROWS, SQL_STATEMENT_TIMEOUT_MS } from "../base/limits.js";

export const sqlQueryTool = defineTool({
  name: "sql_query",
  aliases: ["sql"],
  description: `Run one read-only SQL query (SELECT, WITH, VALUES, EXPLAIN, SHOW) on a configured database (SQLite, PostgreSQL, Oracle or Vertica) and get the result as an ASCII table. One statement per call. Anything that could change data or the session (INSERT/UPDATE/DELETE, DDL, transaction control, SET, PRAGMA, ATTACH, VACUUM, PL/SQL blocks, side-effecting functions) is refused with the reason; the database also runs the statement read-only. Shows ${SQL_DEFAULT_ROWS} rows unless limit says otherwise (at most ${SQL_MAX_ROWS}) and notes when more exist; statements are stopped after ${SQL_STATEMENT_TIMEOUT_MS / 1000} s unless the connection sets another timeout. connection names a configured database (see the error listing them when several exist); use sql_tables and sql_describe to explore the schema first.`,
  schema: () =>
    z
      .object({
        connection: z
          .string()
          .min(1)
          .optional()
          .describe("Name of the database connection (default: the only or default one)"),
        sql: z.string().min(1).describe("Exactly one read-only SQL statement"),
        limit: z
          .number()
          .int()
          .min(1)
          .max(SQL_MAX_ROWS)
          .optional()
          .describe(`Rows shown (default ${SQL_DEFAULT_ROWS})`),
      })
      .strict(),
  cli: {
    command: "sql",
    synopsis: 'rt sql "SELECT ..." [--connection NAME] [--limit N]',
    summary: "run one read-only SQL query on a configured database (SQLite, PostgreSQL, Oracle, Vertica); ASCII table",
    positionals: [{ key: "sql", name: "SQL" }],
    options: { connection: {}, limit: {} },
  },
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const { runQuery } = await import("../db/service.js");
    const { connectionMeta, renderRows, sqlResult } = await import("./shared/sqlResults.js");
    return sqlResult(
      () => runQuery(workspace, args, signal),
      ({ spec, result, limit, elapsedMs }) =>
        ok(renderRows(result, limit), {
          ...connectionMeta(spec),
          columns: result.columns,
          rows: result.rows,
          row_count: result.rows.length,
          more: result.more,
          limit,
          elapsed_ms: elapsedMs,
        }),
    );
  },
});
