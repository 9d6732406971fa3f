// Oracle and Vertica: no server of either can run here. What is tested is
// everything that does not need one: the statement check (sqlText.test.ts),
// the connection settings, the exact sequence of statements each driver sends
// (read-only transaction first, rollback and close always) against a fake
// client, error mapping, and the real client libraries failing clearly
// against a closed port.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { ORACLE_READ_ONLY, oracleDriver, runOracle, type OracleModuleLike } from "../../src/db/oracle.ts";
import {
  runVertica,
  verticaDriver,
  verticaLiteral,
  verticaPrologue,
  type VerticaModuleLike,
} from "../../src/db/vertica.ts";
import type { OracleSpec, VerticaSpec } from "../../src/db/connections.ts";

const oracleSpec: OracleSpec = {
  name: "ora",
  origin: "test",
  timeoutMs: 30_000,
  engine: "oracle",
  connectString: "db.example:1521/ORCLPDB1",
  user: "scott",
  password: "tiger",
};
const verticaSpec: VerticaSpec = {
  name: "vert",
  origin: "test",
  timeoutMs: 30_000,
  engine: "vertica",
  host: "vertica.example",
  port: 5433,
  database: "analytics",
  user: "reader",
  password: "pw",
};

function fakeOracle(opts: { rows?: unknown[][]; fail?: Error } = {}) {
  const log: string[] = [];
  const conn = {
    callTimeout: undefined as number | undefined,
    async execute(sql: string, _binds?: unknown, options?: Record<string, unknown>) {
      log.push(`execute ${sql}${options ? ` ${JSON.stringify(options)}` : ""}`);
      if (sql === ORACLE_READ_ONLY) return {};
      if (opts.fail) throw opts.fail;
      const rows = opts.rows ?? [];
      return {
        metaData: [{ name: "ID" }, { name: "CREATED" }],
        resultSet: {
          async getRows(n: number) {
            log.push(`getRows ${n}`);
            return rows.slice(0, n);
          },
          async close() {
            log.push("resultSet.close");
          },
        },
      };
    },
    async rollback() {
      log.push("rollback");
    },
    async close() {
      log.push("close");
    },
  };
  const mod: OracleModuleLike = {
    OUT_FORMAT_ARRAY: 4001,
    async getConnection(config) {
      log.push(`connect ${config.user}@${config.connectString}`);
      return conn;
    },
  };
  return { log, conn, load: async () => mod };
}

test("Oracle: SET TRANSACTION READ ONLY first, callTimeout set, limit + 1 rows fetched, then rollback and close", async () => {
  const rows = Array.from({ length: 5 }, (_, i) => [i + 1, new Date(Date.UTC(2024, 0, i + 1))]);
  const f = fakeOracle({ rows });
  const r = await runOracle(oracleSpec, { sql: "SELECT id, created FROM t", limit: 3, timeoutMs: 1234 }, f.load);
  assert.deepEqual(f.log, [
    "connect scott@db.example:1521/ORCLPDB1",
    `execute ${ORACLE_READ_ONLY}`,
    'execute SELECT id, created FROM t {"resultSet":true,"outFormat":4001}',
    "getRows 4",
    "resultSet.close",
    "rollback",
    "close",
  ]);
  assert.equal(f.conn.callTimeout, 1234);
  assert.deepEqual(r.columns, ["ID", "CREATED"]);
  assert.deepEqual(r.rows, [
    [1, "2024-01-01T00:00:00.000Z"],
    [2, "2024-01-02T00:00:00.000Z"],
    [3, "2024-01-03T00:00:00.000Z"],
  ]);
  assert.equal(r.more, true);
});

test("Oracle: errors are mapped (read-only refusal, timeout), and rollback and close happen anyway", async () => {
  const ro = fakeOracle({
    fail: Object.assign(
      new Error("ORA-01456: may not perform insert/delete/update operation inside a READ ONLY transaction"),
      { errorNum: 1456 },
    ),
  });
  await assert.rejects(
    runOracle(oracleSpec, { sql: "SELECT f() FROM dual", limit: 1, timeoutMs: 1000 }, ro.load),
    (e: Error & { kind?: string }) => {
      assert.equal(e.kind, "refused");
      assert.match(e.message, /^refused by Oracle: ORA-01456/);
      return true;
    },
  );
  assert.deepEqual(ro.log.slice(-2), ["rollback", "close"]);
  const slow = fakeOracle({
    fail: Object.assign(new Error("NJS-123: call timeout of 1000 ms exceeded"), { code: "NJS-123" }),
  });
  await assert.rejects(
    runOracle(oracleSpec, { sql: "SELECT 1 FROM dual", limit: 1, timeoutMs: 1000 }, slow.load),
    /statement timed out after 1 s \(NJS-123/,
  );
  const other = fakeOracle({ fail: new Error("ORA-00942: table or view does not exist") });
  await assert.rejects(
    runOracle(oracleSpec, { sql: "SELECT * FROM nope", limit: 1, timeoutMs: 1000 }, other.load),
    /^DbError: Oracle error: ORA-00942/,
  );
});

test("Oracle catalog queries: unquoted names folded to upper case, binds positional", () => {
  const d = oracleDriver(oracleSpec);
  assert.deepEqual(d.describeQuery("scott.emp")?.params, ["EMP", "SCOTT"]);
  assert.deepEqual(d.describeQuery('"Mixed"."Case"')?.params, ["Case", "Mixed"]);
  assert.deepEqual(d.describeQuery("emp")?.params, ["EMP", null]);
  assert.equal(d.describeQuery("a.b.c"), undefined);
  const t = d.tablesQuery("%EMP%");
  assert.deepEqual(t.params, ["%EMP%", "%EMP%", "%EMP%"]);
  assert.match(t.sql, /all_tables/);
  assert.match(t.sql, /oracle_maintained = 'N'/);
});

function fakeVertica(opts: { rows?: unknown[][]; fail?: Error } = {}) {
  const log: string[] = [];
  class Query extends EventEmitter {
    constructor(readonly config: Record<string, unknown>) {
      super();
    }
  }
  class Client {
    constructor(readonly config: Record<string, unknown>) {
      log.push(`client ${config.user}@${config.host}:${config.port}/${config.database}`);
    }
    on() {
      return this;
    }
    async connect() {
      log.push("connect");
    }
    query(q: unknown): unknown {
      if (typeof q === "string") {
        log.push(q);
        return Promise.resolve({});
      }
      const query = q as Query;
      log.push(`query ${query.config.text} rowMode=${query.config.rowMode}`);
      setImmediate(() => {
        if (opts.fail) return query.emit("error", opts.fail);
        const fields = [{ name: "n" }];
        for (const row of opts.rows ?? []) query.emit("row", row, { fields });
        query.emit("end", { fields });
      });
      return query;
    }
    async end() {
      log.push("end");
    }
  }
  const mod = { Client, Query } as unknown as VerticaModuleLike;
  return { log, load: async () => mod };
}

test("Vertica: read-only session and transaction, runtime cap, at most limit + 1 rows kept, then ROLLBACK and close", async () => {
  const f = fakeVertica({ rows: [[1], [2], [3], [4], [5]] });
  const r = await runVertica(verticaSpec, { sql: "SELECT n FROM t", limit: 2, timeoutMs: 2500 }, f.load);
  assert.deepEqual(f.log, [
    "client reader@vertica.example:5433/analytics",
    "connect",
    "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
    "SET SESSION RUNTIMECAP '3 seconds'",
    "BEGIN TRANSACTION READ ONLY",
    "query SELECT n FROM t rowMode=array",
    "ROLLBACK",
    "end",
  ]);
  assert.deepEqual(r, { columns: ["n"], rows: [[1], [2]], more: true });
  assert.deepEqual(verticaPrologue(30_000).slice(-1), ["BEGIN TRANSACTION READ ONLY"]);
});

test("Vertica: errors are mapped and the connection is closed", async () => {
  const f = fakeVertica({ fail: new Error("Execution time exceeded run time cap of 00:00:03") });
  await assert.rejects(
    runVertica(verticaSpec, { sql: "SELECT 1", limit: 1, timeoutMs: 3000 }, f.load),
    /statement timed out after 3 s/,
  );
  assert.equal(f.log[f.log.length - 1], "end");
  const ro = fakeVertica({ fail: new Error("Cannot issue this command in a read-only transaction") });
  await assert.rejects(
    runVertica(verticaSpec, { sql: "SELECT 1", limit: 1, timeoutMs: 3000 }, ro.load),
    /^DbError: refused by Vertica: Cannot issue this command in a read-only transaction/,
  );
});

test("Vertica catalog queries: names and patterns as quoted literals", () => {
  assert.equal(verticaLiteral("o'brien"), "'o''brien'");
  assert.throws(() => verticaLiteral("a\0b"), /control characters/);
  const d = verticaDriver(verticaSpec);
  assert.match(
    d.describeQuery("store.sales")!.sql,
    /lower\(c\.table_schema\) = lower\('store'\) AND lower\(c\.table_name\) = lower\('sales'\)/,
  );
  assert.match(d.describeQuery("sales")!.sql, /lower\('public'\)/);
  assert.match(d.tablesQuery("%it's%").sql, /ILIKE '%it''s%'/);
});

test("the real client libraries load (oracledb in thin mode) and fail clearly against a closed port", async () => {
  const root = tempTree({}, "rt-ov-");
  const env = {
    HOME: root,
    ORACLE_DSN: "127.0.0.1:1/XEPDB1",
    ORACLE_USER: "scott",
    ORACLE_PASSWORD: "tiger",
    VERTICA_HOST: "127.0.0.1",
    VERTICA_PORT: "1",
    VERTICA_USER: "dbadmin",
    VERTICA_DATABASE: "x",
  };
  const ws = createWorkspace({ root, env });
  const o = await callTool(ws, "sql_query", { connection: "oracle", sql: "SELECT 1 FROM dual" });
  assert.equal(o.success, false);
  assert.equal(o.kind, "connect");
  assert.match(
    o.error!,
    /^could not connect to Oracle: NJS-503: connection to host 127\.0\.0\.1 port 1 could not be established/,
  );
  const v = await callTool(ws, "sql_query", { connection: "vertica", sql: "SELECT 1" });
  assert.equal(v.kind, "connect");
  assert.match(v.error!, /^could not connect to Vertica: connect ECONNREFUSED 127\.0\.0\.1:1/);
});

test("refusals happen before any connection: PL/SQL blocks and several statements never reach the server", async () => {
  const root = tempTree({}, "rt-ov-");
  // Unroutable-by-construction addresses: if rt tried to connect, these calls would fail with a connection error instead.
  const env = {
    HOME: root,
    ORACLE_DSN: "127.0.0.1:1/XEPDB1",
    ORACLE_USER: "scott",
    VERTICA_HOST: "127.0.0.1",
    VERTICA_PORT: "1",
  };
  const ws = createWorkspace({ root, env });
  const cases: Array<[string, string, RegExp]> = [
    ["oracle", "BEGIN DELETE FROM emp; COMMIT; END;", /anonymous PL\/SQL block/],
    ["oracle", "DECLARE x NUMBER; BEGIN NULL; END;", /anonymous PL\/SQL block/],
    ["oracle", "WITH FUNCTION f RETURN NUMBER IS BEGIN RETURN 1; END; SELECT f FROM dual", /inline PL\/SQL/],
    ["oracle", "SELECT 1 FROM dual; DELETE FROM emp", /one statement per call/],
    ["oracle", "SELECT DBMS_SCHEDULER.CREATE_JOB('x') FROM dual", /DBMS_\/UTL_ package/],
    ["oracle", "CREATE TABLE x (a NUMBER)", /CREATE changes the schema/],
    ["vertica", "DO $$ BEGIN PERFORM 1; END $$", /DO runs procedural code/],
    ["vertica", "SELECT 1; DELETE FROM t", /one statement per call/],
    ["vertica", "SELECT EXPORT_TABLES('/tmp/x', '')", /writes files on the server/],
    ["vertica", "COPY t FROM LOCAL '/etc/passwd'", /COPY/],
  ];
  for (const [connection, sql, reason] of cases) {
    const r = await callTool(ws, "sql_query", { connection, sql });
    assert.equal(r.success, false);
    assert.equal(r.refused_by, "rt", `${connection}: ${sql}: ${r.error}`);
    assert.match(r.error!, reason);
  }
});
