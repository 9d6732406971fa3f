// Vertica through `vertica-nodejs` (a node-postgres fork), one connection per statement:
//   - SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY, SET SESSION RUNTIMECAP
//     (the statement timeout; a client-side timer closes the connection too);
//   - BEGIN TRANSACTION READ ONLY; the statement, keeping at most limit + 1 rows
//     as they arrive; ROLLBACK; close.
// Vertica's read-only transactions still allow some writes (temporary tables,
// meta-functions): rt's statement check refuses those it knows, and a user with
// SELECT privileges only is the real guarantee (README).
// No Vertica server can run on rt's test machines: this file is tested with a
// fake client and against a closed port, not against a server.
import { EventEmitter } from "node:events";
import type { VerticaSpec } from "./connections.js";
import {
  connectionGuard,
  DbError,
  formatDuration,
  importClient,
  toCell,
  type CatalogQuery,
  type Driver,
  type QueryRequest,
  type PgStyleClient,
  type QueryResult,
} from "./driver.js";
import { splitQualifiedName } from "./sqlText.js";
import { SQL_CONNECT_TIMEOUT_MS } from "../base/limits.js";
import { withoutEnv } from "../base/envScope.js";

/** The part of vertica-nodejs rt uses (a fake in tests). */
export interface VerticaModuleLike {
  Client: new (config: Record<string, unknown>) => PgStyleClient;
  Query: new (config: Record<string, unknown>) => EventEmitter;
}

async function loadVertica(): Promise<VerticaModuleLike> {
  return importClient("vertica-nodejs", async () => {
    const mod = (await import("vertica-nodejs")) as unknown as { default?: VerticaModuleLike } & VerticaModuleLike;
    return mod.default ?? mod;
  });
}

/**
 * vertica-nodejs fills a missing password and OAuth token from V_PASSWORD and
 * V_OAUTH_ACCESS_TOKEN on its own, for whatever host the connection names, and
 * sends them when that server asks. A project's connection (even in a trusted
 * folder) must not get the user's secrets that way (as PGPASSWORD:
 * connections.ts guardEnvironmentPassword): the client is built with them out
 * of sight. It reads them in its constructor only, which runs synchronously.
 */
const DRIVER_SECRET_ENV = ["V_PASSWORD", "V_OAUTH_ACCESS_TOKEN"];

function withoutDriverSecrets<T>(make: () => T): T {
  return withoutEnv(DRIVER_SECRET_ENV, make);
}

/** The statements rt sends before the caller's statement; exported for tests. */
export function verticaPrologue(timeoutMs: number): string[] {
  return [
    "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
    `SET SESSION RUNTIMECAP '${Math.max(1, Math.ceil(timeoutMs / 1000))} seconds'`,
    "BEGIN TRANSACTION READ ONLY",
  ];
}

/** A string literal for Vertica (standard-conforming strings: quotes doubled). */
export function verticaLiteral(s: string): string {
  if (/[\0-\x08\x0b\x0c\x0e-\x1f]/.test(s))
    throw new DbError("control characters are not accepted in names or patterns", "sql");
  return `'${s.replace(/'/g, "''")}'`;
}

function mapError(e: unknown, timeoutMs: number, phase: "connect" | "run"): DbError {
  if (e instanceof DbError) return e;
  const err = e as Error & { code?: string };
  const msg = err.message;
  if (phase === "connect") return new DbError(`could not connect to Vertica: ${msg}`, "connect", err.code);
  if (/runtimecap|exceeded run time cap|canceled/i.test(msg)) {
    return new DbError(
      `statement timed out after ${formatDuration(timeoutMs)} (${msg}); narrow the query or raise the connection's timeout_ms`,
      "timeout",
      err.code,
    );
  }
  if (/read[- ]only|permission denied|insufficient privilege/i.test(msg))
    return new DbError(`refused by Vertica: ${msg}`, "refused", err.code);
  return new DbError(`Vertica error: ${msg}`, "sql", err.code);
}

export async function runVertica(
  spec: VerticaSpec,
  req: QueryRequest,
  load: () => Promise<VerticaModuleLike> = loadVertica,
): Promise<QueryResult> {
  const { Client, Query } = await load();
  const config = {
    host: spec.host,
    port: spec.port,
    database: spec.database,
    user: spec.user,
    password: spec.password,
    connectionTimeoutMillis: SQL_CONNECT_TIMEOUT_MS,
  };
  const client = spec.fromProject ? withoutDriverSecrets(() => new Client(config)) : new Client(config);
  client.on("error", () => undefined);
  const guard = connectionGuard(() => client.connection?.stream?.destroy(), req.timeoutMs + 2000, req.signal);
  try {
    try {
      await client.connect();
    } catch (e) {
      throw mapError(e, req.timeoutMs, "connect");
    }
    try {
      for (const s of verticaPrologue(req.timeoutMs)) {
        if (s.startsWith("SET SESSION RUNTIMECAP")) {
          // A user whose profile caps run time lower may not raise it; the client-side timer still applies.
          await client.query(s).catch(() => undefined);
        } else await client.query(s);
      }
      const rows: unknown[][] = [];
      let columns: string[] = [];
      const q = client.query(new Query({ text: req.sql, rowMode: "array" }));
      await new Promise<void>((resolve, reject) => {
        q.on("row", (row: unknown[], result?: { fields?: { name: string }[] }) => {
          if (columns.length === 0 && result?.fields) columns = result.fields.map((f) => f.name);
          if (rows.length <= req.limit) rows.push(row);
        });
        q.on("end", (result?: { fields?: { name: string }[] }) => {
          if (columns.length === 0 && result?.fields) columns = result.fields.map((f) => f.name);
          resolve();
        });
        q.on("error", reject);
        // The client-side timer may close the socket without the query hearing of it.
        client.on("error", reject);
      });
      await client.query("ROLLBACK");
      return { columns, rows: rows.slice(0, req.limit).map((r) => r.map(toCell)), more: rows.length > req.limit };
    } catch (e) {
      if (req.signal?.aborted) throw new DbError("the statement was cancelled", "aborted");
      if (guard.timedOut)
        throw new DbError(
          `statement timed out after ${formatDuration(req.timeoutMs)}; the connection was closed`,
          "timeout",
        );
      throw mapError(e, req.timeoutMs, "run");
    }
  } finally {
    guard.release();
    await client.end().catch(() => undefined);
  }
}

export function verticaDriver(spec: VerticaSpec, load?: () => Promise<VerticaModuleLike>): Driver {
  return {
    engine: "vertica",
    run: (req) => runVertica(spec, req, load),
    tablesQuery(pattern): CatalogQuery {
      // Literals rather than parameters: simple queries only, whatever the server's protocol version.
      const match =
        pattern === undefined
          ? ""
          : `WHERE name ILIKE ${verticaLiteral(pattern)} OR (schema || '.' || name) ILIKE ${verticaLiteral(pattern)}`;
      return {
        sql: `SELECT schema, name, type FROM (
  SELECT table_schema AS schema, table_name AS name, 'table' AS type FROM v_catalog.tables
  UNION ALL
  SELECT table_schema, table_name, 'view' FROM v_catalog.views
) t ${match}
ORDER BY schema, name`,
        params: [],
      };
    },
    describeQuery(table): CatalogQuery | undefined {
      const q = splitQualifiedName(table, "vertica");
      if (!q || q.parts.length > 2) return undefined;
      const schema = q.parts.length === 2 ? q.parts[0] : "public";
      const name = q.parts[q.parts.length - 1];
      return {
        sql: `SELECT c.column_name AS "column", c.data_type AS type, CASE WHEN c.is_nullable THEN 'YES' ELSE 'NO' END AS nullable,
       c.column_default AS "default",
       CASE WHEN EXISTS (SELECT 1 FROM v_catalog.primary_keys k WHERE k.table_schema = c.table_schema AND k.table_name = c.table_name AND k.column_name = c.column_name) THEN 'PK' ELSE '' END AS "key"
  FROM v_catalog.columns c
 WHERE lower(c.table_schema) = lower(${verticaLiteral(schema)}) AND lower(c.table_name) = lower(${verticaLiteral(name)})
 ORDER BY c.ordinal_position`,
        params: [],
      };
    },
  };
}
