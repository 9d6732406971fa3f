import * as z from "zod";
import { defineTool, fail, ok } from "./types.js";
import { SQL_MAX_ROWS } from "../base/limits.js";

export const sqlDescribeTool = defineTool({
  name: "sql_describe",
  aliases: ["describe_table"],
  description:
    "Describe one table or view of a configured database: each column's name, type, whether it may be NULL, its default, and PK for primary-key columns. table is NAME or SCHEMA.NAME (double quotes around names that need them). When the table is not found the error lists similar names. Read-only.",
  schema: () =>
    z
      .object({
        connection: z
          .string()
          .min(1)
          .optional()
          .describe("Name of the database connection (default: the only or default one)"),
        table: z.string().min(1).describe("Table or view: NAME or SCHEMA.NAME"),
      })
      .strict(),
  cli: {
    synopsis: "rt sql-describe TABLE [--connection NAME]",
    summary: "show a table's columns: type, nullable, default, primary key",
    positionals: [{ key: "table", name: "TABLE" }],
    options: { connection: {} },
  },
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const { describeTable } = await import("../db/service.js");
    const { connectionMeta, renderRows, sqlResult } = await import("./shared/sqlResults.js");
    return sqlResult(
      () => describeTable(workspace, args, signal),
      (answer) => {
        const meta = connectionMeta(answer.spec);
        if ("unreadableName" in answer) {
          return fail(
            `cannot read the table name "${args.table}": give NAME or SCHEMA.NAME, with double quotes around names that need them`,
            meta,
          );
        }
        if ("similar" in answer) {
          const near = answer.similar;
          return fail(
            `table or view "${args.table}" not found on connection ${answer.spec.name} (${answer.spec.engine})${near.length ? `; similar names: ${near.join(", ")}` : ""}. sql_tables lists them`,
            meta,
          );
        }
        return ok(`${args.table}\n${renderRows(answer.result, SQL_MAX_ROWS, "column")}`, {
          ...meta,
          table: args.table,
          columns: answer.result.columns,
          rows: answer.result.rows,
        });
      },
    );
  },
});
