import { z } from "zod";
import { defineTool } from "./types.js";
import { SQL_TABLES_MAX_ROWS } from "../limits.js";

export const sqlTablesTool = defineTool({
  name: "sql_tables",
  aliases: ["list_tables"],
  description: `List the tables and views of a configured database (schema, name, type), optionally only those whose name matches pattern: a LIKE pattern (% and _, or * and ?); a pattern without wildcards matches names containing it, case-insensitively. At most ${SQL_TABLES_MAX_ROWS} names. Read-only.`,
  schema: () => z
    .object({
      connection: z.string().min(1).optional().describe("Name of the database connection (default: the only or default one)"),
      pattern: z.string().optional().describe("Filter on table names, e.g. order or %log%"),
    })
    .strict(),
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const { sqlTables } = await import("../db/service.js");
    return sqlTables(workspace, args, signal);
  },
});
