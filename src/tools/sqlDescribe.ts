import { z } from "zod";
import { defineTool } from "./types.js";

export const sqlDescribeTool = defineTool({
  name: "sql_describe",
  aliases: ["describe_table"],
  description:
    "Describe one table or view of a configured database: each column's name, type, whether it may be NULL, its default, and PK for primary-key columns. table is NAME or SCHEMA.NAME (double quotes around names that need them). When the table is not found the error lists similar names. Read-only.",
  schema: () => z
    .object({
      connection: z.string().min(1).optional().describe("Name of the database connection (default: the only or default one)"),
      table: z.string().min(1).describe("Table or view: NAME or SCHEMA.NAME"),
    })
    .strict(),
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, signal }) {
    const { sqlDescribe } = await import("../db/service.js");
    return sqlDescribe(workspace, args, signal);
  },
});
