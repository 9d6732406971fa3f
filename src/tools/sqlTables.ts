import * as z from "zod";
import { defineTool, ok } from "./types.js";
import { SQL_TABLES_MAX_ROWS } from "../base/limits.js";

export const sqlTablesTool = defineTool({
  name: "sql_tables",
  aliases: ["list_tables"],
  description: `List the tables and views of a configured database (schema, name, type), optionally only those whose name matches pattern: a LIKE pattern (% and _, or * and ?); a pattern without wildcards matches names containing it, case-insensitively. At most ${SQL_TABLES_MAX_ROWS} names. Read-only.`,
  schema: () =>
    z
      .object({
        connection: z
          .string()
          .min(1)
          .optional()
          .describe("Name of the database connection (default: the only or default one)"),
        pattern: z.string().optional().describe("Filter on table names, e.g. order or %log%"),
      })
      .strict(),
  cli: {
    synopsis: "rt sql-tables [PATTERN] [--connection NAME]",
    summary: "list a database's tables and views (PATTERN: LIKE pattern or substring)",
    positionals: [{ key: "pattern", name: "PATTERN", optional: true }],
    options: { connection: {} },
  },
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const { listTables } = await import("../db/service.js");
    const { describeTarget } = await import("../db/connections.js");
    const { connectionMeta, renderRows, sqlResult } = await import("./shared/sqlResults.js");
    return sqlResult(
      () => listTables(workspace, args, signal),
      ({ spec, result }) => {
        if (result.rows.length === 0) {
          const where = `${spec.name} (${spec.engine}, ${describeTarget(spec)})`;
          return ok(
            args.pattern ? `no table or view matches "${args.pattern}" on ${where}` : `no tables or views on ${where}`,
            { ...connectionMeta(spec), tables: [], more: false },
          );
        }
        return ok(renderRows(result, SQL_TABLES_MAX_ROWS, "table"), {
          ...connectionMeta(spec),
          columns: result.columns,
          tables: result.rows,
          more: result.more,
        });
      },
    );
  },
});
