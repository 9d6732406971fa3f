// PostgreSQL through `pg`, one connection per statement:
//   - the session starts with default_transaction_read_only=on and the statement timeout;
//   - BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL statement_timeout;
//     then a first query takes the snapshot, after which the transaction can no
//     longer be made READ WRITE;
//   - the statement goes through the extended query protocol only (a cursor:
//     Parse/Bind/Execute), which refuses a string holding several statements,
//     and at most limit + 1 rows are fetched;
//   - ROLLBACK, and the connection is closed.
// A SELECT-only role is still recommended (README): a read-only transaction
// cannot stop functions that act outside it, such as pg_terminate_backend or
// COPY ... TO PROGRAM, when the role is allowed to use them.
import type { PostgresSpec } from "./connections.js";
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
import { SQL_CONNECT_TIMEOUT_MS } from "../base/limits.js";

interface CursorLike {
  read(
    rows: number,
    cb: (err: Error | undefined, rows: unknown[][], result: { fields?: { name: string }[] }) => void,
  ): void;
  close(cb: (err?: Error) => void): void;
}

interface PgModules {
  Client: new (config: Record<string, unknown>) => PgStyleClient;
  Cursor: new (text: string, values: unknown[] | undefined, config: Record<string, unknown>) => CursorLike;
  /** Type parsers: pg's own, except bigint (int8), read as BigInt so that toCell keeps safe values as numbers. */
  types: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
}

const INT8_OID = 20;

async function loadPg(): Promise<PgModules> {
  return importClient("pg", async () => {
    const pg = (await import("pg")).default;
    const Cursor = (await import("pg-cursor")).default;
    const base = pg.types;
    const types: PgModules["types"] = {
      getTypeParser: (oid, format) =>
        oid === INT8_OID && format !== "binary" ? (v: string) => BigInt(v) : base.getTypeParser(oid, format as "text"),
    };
    return {
      Client: pg.Client as unknown as PgModules["Client"],
      Cursor: Cursor as unknown as PgModules["Cursor"],
      types,
    };
  });
}

/** Connection settings for pg.Client: the spec's, the read-only session defaults, and the timeouts. */
export function clientConfig(spec: PostgresSpec, timeoutMs: number): Record<string, unknown> {
  const cfg: Record<string, unknown> = {
    application_name: "rt",
    connectionTimeoutMillis: SQL_CONNECT_TIMEOUT_MS,
    statement_timeout: timeoutMs,
    // Every transaction of this session is read-only unless it says otherwise; rt's own BEGIN says READ ONLY too.
    options: "-c default_transaction_read_only=on",
  };
  if (spec.connectionString) cfg.connectionString = spec.connectionString;
  for (const k of ["host", "port", "database", "user", "password"] as const)
    if (spec[k] !== undefined) cfg[k] = spec[k];
  if (spec.ssl === true || spec.ssl === "require") cfg.ssl = true;
  else if (spec.ssl === "no-verify") cfg.ssl = { rejectUnauthorized: false };
  else if (spec.ssl === false || spec.ssl === "disable") cfg.ssl = false;
  return cfg;
}

interface PgError extends Error {
  code?: string;
  position?: string;
  hint?: string;
  detail?: string;
}

function mapError(e: unknown, timeoutMs: number, phase: "connect" | "run"): DbError {
  if (e instanceof DbError) return e;
  const err = e as PgError;
  const code = err.code;
  const extra = [
    err.detail ? `detail: ${err.detail}` : "",
    err.hint ? `hint: ${err.hint}` : "",
    err.position ? `at character ${err.position}` : "",
  ]
    .filter(Boolean)
    .join("; ");
  const msg = `${err.message}${extra ? ` (${extra})` : ""}`;
  // Class 08 is a connection error only while connecting: once connected, a server-side 08 is about the
  // statement (08P01: a $1 parameter without a value; 08003: dblink's "connection not available").
  if (
    phase === "connect" ||
    (code && code.startsWith("08") && !(code === "08P01" || code === "08003")) ||
    code === "ECONNREFUSED" ||
    code === "ENOTFOUND" ||
    code === "28P01" ||
    code === "28000" ||
    code === "3D000"
  ) {
    return new DbError(`could not connect to PostgreSQL: ${msg}`, "connect", code);
  }
  if (code === "57014")
    return new DbError(
      `statement timed out after ${formatDuration(timeoutMs)} and was cancelled by the server (${err.message}); narrow the query or raise the connection's timeout_ms`,
      "timeout",
      code,
    );
  // 25006 read_only_sql_transaction, 42501 insufficient_privilege, 0A000 feature_not_supported (e.g. COPY in a read-only transaction),
  // 25001 active_sql_transaction, 25P01 no_active_sql_transaction... and several commands in one prepared statement (42601 with that message).
  if (
    code === "25006" ||
    code === "42501" ||
    code === "25001" ||
    code === "0A000" ||
    /multiple commands into a prepared statement/.test(err.message)
  ) {
    return new DbError(`refused by PostgreSQL: ${msg}`, "refused", code);
  }
  return new DbError(`PostgreSQL error${code ? ` ${code}` : ""}: ${msg}`, "sql", code);
}

/** The statements rt sends around the caller's statement; exported for tests. */
export function transactionPrologue(timeoutMs: number): string[] {
  return [
    "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
    `SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`,
    // Takes the transaction's snapshot: from here on SET TRANSACTION READ WRITE fails.
    "SELECT 1",
  ];
}

export async function runPostgres(spec: PostgresSpec, req: QueryRequest, modules?: PgModules): Promise<QueryResult> {
  const { Client, Cursor, types } = modules ?? (await loadPg());
  const client = new Client(clientConfig(spec, req.timeoutMs));
  // Socket errors also reject the pending call; without a listener they would crash the process.
  client.on("error", () => undefined);
  // The server-side statement_timeout is the first line; this closes a connection that never answers.
  const guard = connectionGuard(
    () => client.connection?.stream?.destroy(),
    req.timeoutMs + SQL_CONNECT_TIMEOUT_MS + 2000,
    req.signal,
  );
  try {
    try {
      await client.connect();
    } catch (e) {
      throw mapError(e, req.timeoutMs, "connect");
    }
    try {
      for (const s of transactionPrologue(req.timeoutMs)) await client.query(s);
      const cursor = client.query(
        new Cursor(req.sql, Array.isArray(req.params) && req.params.length ? req.params : undefined, {
          rowMode: "array",
          types,
        }),
      );
      const { rows, fields } = await new Promise<{ rows: unknown[][]; fields: { name: string }[] }>((resolve, reject) =>
        cursor.read(req.limit + 1, (err, rows, result) =>
          err ? reject(err) : resolve({ rows, fields: result?.fields ?? [] }),
        ),
      );
      await new Promise<void>((resolve) => cursor.close(() => resolve()));
      await client.query("ROLLBACK");
      return {
        columns: fields.map((f) => f.name),
        rows: rows.slice(0, req.limit).map((r) => r.map(toCell)),
        more: rows.length > req.limit,
      };
    } catch (e) {
      if (req.signal?.aborted) throw new DbError("the statement was cancelled", "aborted");
      if (guard.timedOut)
        throw new DbError(
          `no answer from PostgreSQL within ${formatDuration(req.timeoutMs)}; the connection was closed`,
          "timeout",
        );
      throw mapError(e, req.timeoutMs, "run");
    }
  } finally {
    guard.release();
    await client.end().catch(() => undefined);
  }
}

export function postgresDriver(spec: PostgresSpec): Driver {
  return {
    engine: "postgres",
    run: (req) => runPostgres(spec, req),
    tablesQuery(pattern): CatalogQuery {
      return {
        sql: `SELECT schema, name, type FROM (
  SELECT table_schema AS schema, table_name AS name,
         CASE table_type WHEN 'BASE TABLE' THEN 'table' WHEN 'VIEW' THEN 'view' WHEN 'FOREIGN' THEN 'foreign table' ELSE lower(table_type) END AS type
    FROM information_schema.tables
   WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg\\_temp\\_%' AND table_schema NOT LIKE 'pg\\_toast%'
  UNION ALL
  SELECT schemaname, matviewname, 'materialized view' FROM pg_matviews
) t
WHERE $1::text IS NULL OR name ILIKE $1 OR (schema || '.' || name) ILIKE $1
ORDER BY schema, name`,
        params: [pattern ?? null],
      };
    },
    describeQuery(table): CatalogQuery {
      return {
        sql: `SELECT a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
       CASE WHEN a.attnotnull THEN 'NO' ELSE 'YES' END AS nullable,
       pg_get_expr(d.adbin, d.adrelid) AS default,
       CASE WHEN EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY (i.indkey)) THEN 'PK' ELSE '' END AS key
  FROM pg_attribute a
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attnum`,
        params: [table],
      };
    },
  };
}
