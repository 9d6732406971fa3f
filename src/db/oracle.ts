// Oracle through `oracledb` in thin mode (pure JavaScript: no Instant Client),
// one connection per statement:
//   - SET TRANSACTION READ ONLY first, so DML fails with ORA-01456;
//   - the statement with callTimeout = the statement timeout, fetched through a
//     result set (limit + 1 rows), then ROLLBACK and close.
// Oracle commits DDL implicitly, even inside a read-only transaction, and
// PL/SQL can open autonomous transactions: rt's statement check refuses DDL,
// anonymous blocks (BEGIN/DECLARE), WITH FUNCTION and DBMS_/UTL_ calls, and a
// user with SELECT privileges only is the real guarantee (README).
// No Oracle server can run on rt's test machines: this file is tested with a
// fake connection and against a closed port, not against a server.
import type { OracleSpec } from "./connections.js";
import {
  DbError,
  formatDuration,
  importClient,
  toCell,
  type CatalogQuery,
  type Driver,
  type QueryRequest,
  type QueryResult,
} from "./driver.js";
import { splitQualifiedName } from "./sqlText.js";
import { SQL_CONNECT_TIMEOUT_MS } from "../base/limits.js";

export interface OracleResultSetLike {
  getRows(n: number): Promise<unknown[][]>;
  close(): Promise<void>;
}
export interface OracleConnectionLike {
  callTimeout?: number;
  execute(
    sql: string,
    binds?: unknown,
    options?: Record<string, unknown>,
  ): Promise<{ resultSet?: OracleResultSetLike; metaData?: { name: string }[]; rows?: unknown[][] }>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}
/** The part of the oracledb module rt uses (a fake in tests). */
export interface OracleModuleLike {
  getConnection(config: Record<string, unknown>): Promise<OracleConnectionLike>;
  OUT_FORMAT_ARRAY: number;
  fetchAsString?: unknown[];
  CLOB?: unknown;
  NCLOB?: unknown;
}

async function loadOracle(): Promise<OracleModuleLike> {
  return importClient("oracledb", async () => {
    const mod = (await import("oracledb")) as unknown as { default?: OracleModuleLike } & OracleModuleLike;
    const ora = mod.default ?? mod;
    // Thin mode is the default as long as initOracleClient() is never called; rt never calls it.
    if (ora.CLOB !== undefined) ora.fetchAsString = [ora.CLOB, ora.NCLOB];
    return ora;
  });
}

export const ORACLE_READ_ONLY = "SET TRANSACTION READ ONLY";

function mapError(e: unknown, timeoutMs: number, phase: "connect" | "run"): DbError {
  if (e instanceof DbError) return e;
  const err = e as Error & { code?: string; errorNum?: number };
  const code = err.code ?? (err.errorNum ? `ORA-${String(err.errorNum).padStart(5, "0")}` : undefined);
  const msg = err.message;
  if (phase === "connect") return new DbError(`could not connect to Oracle: ${msg}`, "connect", code);
  if (/^(NJS-123|DPI-1067|ORA-03156)/.test(msg) || code === "NJS-123") {
    return new DbError(
      `statement timed out after ${formatDuration(timeoutMs)} (${msg}); narrow the query or raise the connection's timeout_ms`,
      "timeout",
      code,
    );
  }
  // ORA-01456: may not perform insert/delete/update operation inside a READ ONLY transaction; ORA-01031: insufficient privileges.
  if (/^ORA-(01456|01031|01950|01552)/.test(msg)) return new DbError(`refused by Oracle: ${msg}`, "refused", code);
  return new DbError(`Oracle error: ${msg}`, "sql", code);
}

export async function runOracle(
  spec: OracleSpec,
  req: QueryRequest,
  load: () => Promise<OracleModuleLike> = loadOracle,
): Promise<QueryResult> {
  const ora = await load();
  let conn: OracleConnectionLike;
  try {
    conn = await ora.getConnection({
      user: spec.user,
      password: spec.password,
      connectString: spec.connectString,
      connectTimeout: Math.ceil(SQL_CONNECT_TIMEOUT_MS / 1000),
      transportConnectTimeout: Math.ceil(SQL_CONNECT_TIMEOUT_MS / 1000),
    });
  } catch (e) {
    throw mapError(e, req.timeoutMs, "connect");
  }
  const onAbort = () => void conn.close().catch(() => undefined);
  req.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    conn.callTimeout = req.timeoutMs;
    await conn.execute(ORACLE_READ_ONLY);
    const binds = req.params ?? [];
    const r = await conn.execute(req.sql, binds, { resultSet: true, outFormat: ora.OUT_FORMAT_ARRAY });
    if (!r.resultSet) return { columns: [], rows: [], more: false };
    const rows = await r.resultSet.getRows(req.limit + 1);
    await r.resultSet.close();
    return {
      columns: (r.metaData ?? []).map((m) => m.name),
      rows: rows.slice(0, req.limit).map((row) => row.map(toCell)),
      more: rows.length > req.limit,
    };
  } catch (e) {
    if (req.signal?.aborted) throw new DbError("the statement was cancelled", "aborted");
    throw mapError(e, req.timeoutMs, "run");
  } finally {
    req.signal?.removeEventListener("abort", onAbort);
    await conn.rollback().catch(() => undefined);
    await conn.close().catch(() => undefined);
  }
}

/** Oracle folds unquoted names to upper case. */
function oracleName(part: string, quoted: boolean): string {
  return quoted ? part : part.toUpperCase();
}

export function oracleDriver(spec: OracleSpec, load?: () => Promise<OracleModuleLike>): Driver {
  return {
    engine: "oracle",
    run: (req) => runOracle(spec, req, load),
    tablesQuery(pattern): CatalogQuery {
      const owners = "owner IN (SELECT username FROM all_users WHERE oracle_maintained = 'N')";
      // Positional binds: each placeholder takes its own value.
      const match = "(:p1 IS NULL OR UPPER(name) LIKE UPPER(:p2) OR UPPER(schema || '.' || name) LIKE UPPER(:p3))";
      return {
        sql: `SELECT schema, name, type FROM (
  SELECT owner AS schema, table_name AS name, 'table' AS type FROM all_tables WHERE ${owners}
  UNION ALL
  SELECT owner, view_name, 'view' FROM all_views WHERE ${owners}
) WHERE ${match}
ORDER BY schema, name`,
        params: [pattern ?? null, pattern ?? null, pattern ?? null],
      };
    },
    describeQuery(table): CatalogQuery | undefined {
      const q = splitQualifiedName(table, "oracle");
      if (!q || q.parts.length > 2) return undefined;
      const owner = q.parts.length === 2 ? oracleName(q.parts[0], q.quoted[0]) : null;
      const name = oracleName(q.parts[q.parts.length - 1], q.quoted[q.parts.length - 1]);
      return {
        sql: `SELECT c.column_name AS "column",
       c.data_type || CASE WHEN c.data_type IN ('VARCHAR2', 'NVARCHAR2', 'CHAR', 'NCHAR', 'RAW') THEN '(' || c.char_length || ')'
                           WHEN c.data_type = 'NUMBER' AND c.data_precision IS NOT NULL THEN '(' || c.data_precision || ',' || c.data_scale || ')' END AS "type",
       CASE c.nullable WHEN 'Y' THEN 'YES' ELSE 'NO' END AS "nullable",
       c.data_default AS "default",
       CASE WHEN EXISTS (SELECT 1 FROM all_constraints k JOIN all_cons_columns kc ON kc.owner = k.owner AND kc.constraint_name = k.constraint_name
                          WHERE k.constraint_type = 'P' AND k.owner = c.owner AND k.table_name = c.table_name AND kc.column_name = c.column_name)
            THEN 'PK' END AS "key"
  FROM all_tab_columns c
 WHERE c.table_name = :t AND c.owner = COALESCE(:o, SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA'))
 ORDER BY c.column_id`,
        params: [name, owner],
      };
    },
  };
}
