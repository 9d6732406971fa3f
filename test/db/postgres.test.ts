// PostgreSQL, for real: a server started here (Debian's initdb + pg_ctl on a
// free loopback port), the corpus of mutation and escape attempts run through
// the tool as the SELECT-only role of docs/databases.md and as the superuser, and straight
// into the engine with rt's check bypassed; the checksum of data, catalog,
// roles, sequences, large objects and server configuration never moves, and
// no file appears in a directory the server could write to.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { REPO, rt, tempTree } from "../helpers.ts";
import { createWorkspace, type Workspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { runPostgres, transactionPrologue } from "../../src/db/postgres.ts";
import type { PostgresSpec } from "../../src/db/connections.ts";
import { ATTEMPTS, sqlFor } from "./corpus.ts";
import { startPostgres, type PgServer } from "./pgServer.ts";
import { trustFolder } from "../security/trust-harness.ts";
import { READER, READER_ROLE_SQL, adminClient, pgChecksum, setupPgFixture } from "./pgFixture.ts";

let server: PgServer;
let ws: Workspace;
let root: string;
let out: string;
let watcher: pg.Client;

before(async () => {
  server = await startPostgres();
  await setupPgFixture(server);
  watcher = await adminClient(server);
  watcher.on("error", () => undefined);
  root = tempTree({}, "rt-pg-");
  const base = { type: "postgres", host: server.host, port: server.port, database: "app" };
  fs.mkdirSync(path.join(root, ".rt"));
  fs.writeFileSync(
    path.join(root, ".rt", "config.json"),
    JSON.stringify({
      databases: {
        reader: { ...base, user: READER },
        admin: { ...base, user: server.admin },
        slow: { ...base, user: READER, timeout_ms: 1000 },
      },
      default_database: "reader",
    }),
  );
  // A folder the user trusts: its .rt/config.json names the connections (test/security/trust-*.test.ts covers untrusted ones).
  trustFolder(root, { HOME: root });
  ws = createWorkspace({ root, env: { HOME: root } });
  // A directory everyone (the server too) may write to: a file appearing here means an escape worked.
  out = fs.mkdtempSync(path.join(os.tmpdir(), "rt-pg-out-"));
  fs.chmodSync(out, 0o777);
});

after(async () => {
  await watcher?.end().catch(() => undefined);
  server?.stop();
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

const vars = () => ({ OUT: out, PORT: String(server.port) });

async function corpusThroughTool(connection: string, t: { diagnostic(s: string): void }) {
  const before = await pgChecksum(server);
  for (const a of ATTEMPTS) {
    const sql = sqlFor(a, "postgres", vars());
    const r = await callTool(ws, "sql_query", { connection, sql });
    if (!a.harmlessOn?.includes("postgres")) {
      assert.equal(r.success, false, `${a.id}: expected a refusal, got:\n${r.output}`);
      assert.ok(typeof r.error === "string" && r.error.length > 20, `${a.id}: a refusal must carry a reason`);
    }
    assert.equal(await pgChecksum(server), before, `${a.id} changed the database`);
    t.diagnostic(`${a.id}: ${r.success ? "ran (harmless here)" : r.error}`);
  }
  assert.deepEqual(fs.readdirSync(out), [], "no file written by the server");
  const alive = await watcher.query("SELECT 1 AS one");
  assert.equal(alive.rows[0].one, 1, "other sessions were not terminated");
}

test("corpus through sql_query as the SELECT-only role: every attempt refused with a reason, checksums unchanged", async (t) => {
  assert.ok(ATTEMPTS.length >= 40);
  await corpusThroughTool("reader", t);
});

test("corpus through sql_query as the superuser: rt's check and the read-only transaction hold on their own", async (t) => {
  await corpusThroughTool("admin", t);
});

test("corpus, engine only (rt's check bypassed) as the SELECT-only role: PostgreSQL refuses or the attempt is harmless", async (t) => {
  const spec: PostgresSpec = {
    name: "raw",
    origin: "test",
    timeoutMs: 10_000,
    engine: "postgres",
    host: server.host,
    port: server.port,
    user: READER,
    database: "app",
  };
  const before = await pgChecksum(server);
  let refused = 0;
  for (const a of ATTEMPTS) {
    const sql = sqlFor(a, "postgres", vars());
    let outcome: string;
    try {
      const res = await runPostgres(spec, { sql, limit: 5, timeoutMs: 10_000 });
      outcome = `ran: ${JSON.stringify(res.rows).slice(0, 80)}`;
    } catch (e) {
      refused++;
      outcome = (e as Error).message;
    }
    assert.equal(await pgChecksum(server), before, `${a.id} changed the database`);
    t.diagnostic(`${a.id}: ${outcome}`);
  }
  assert.deepEqual(fs.readdirSync(out), []);
  assert.ok(
    refused >= ATTEMPTS.length - 15,
    `most attempts are refused by PostgreSQL itself (${refused} of ${ATTEMPTS.length})`,
  );
});

test("SQL run from a string by ts_stat/ts_rewrite is refused: as the superuser it would end other sessions and write server files", async () => {
  const lo = await watcher.query("SELECT lo_from_bytea(0, 'x'::bytea) AS oid");
  const oid = Number(lo.rows[0].oid);
  try {
    const before = await pgChecksum(server);
    const kill =
      "SELECT to_tsvector(pg_terminate_backend(pid)::text) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = ''client backend''";
    for (const sql of [
      `SELECT * FROM ts_stat('${kill}')`,
      `SELECT * FROM pg_catalog.ts_stat('SELECT to_tsvector(lo_export(${oid}, ''${out}/ts_stat.txt'')::text)')`,
      "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery FROM pg_stat_activity WHERE pg_terminate_backend(pid)')",
    ]) {
      const r = await callTool(ws, "sql_query", { connection: "admin", sql });
      assert.equal(r.success, false, sql);
      assert.match(r.error!, /runs SQL given as a string/, sql);
    }
    assert.equal((await watcher.query("SELECT 1 AS one")).rows[0].one, 1, "other sessions are alive");
    assert.deepEqual(fs.readdirSync(out), []);
    assert.equal(await pgChecksum(server), before);
  } finally {
    await watcher.query(`SELECT lo_unlink(${oid})`);
  }
});

test("a server-side class 08 error while running a statement is not reported as a connection failure", async () => {
  const r = await callTool(ws, "sql_query", { sql: "SELECT $1::int AS x" });
  assert.equal(r.success, false);
  assert.doesNotMatch(r.error!, /could not connect/);
  assert.match(r.error!, /^PostgreSQL error 08P01: bind message supplies 0 parameters/);
});

test("the engine refuses what rt's check lets through: a SECURITY DEFINER function that deletes", async () => {
  const before = await pgChecksum(server);
  const r = await callTool(ws, "sql_query", { connection: "admin", sql: "SELECT wipe()" });
  assert.equal(r.success, false);
  assert.match(r.error!, /^refused by PostgreSQL: cannot execute DELETE in a read-only transaction/);
  assert.equal(r.refused_by, "postgres");
  assert.equal(await pgChecksum(server), before);
});

test("each statement runs in a READ ONLY, REPEATABLE READ transaction with the statement timeout, over the extended protocol", async () => {
  const r = await callTool(ws, "sql_query", {
    sql: "SELECT current_setting('transaction_read_only') AS ro, current_setting('transaction_isolation') AS iso, current_setting('statement_timeout') AS timeout, current_setting('default_transaction_read_only') AS dro",
  });
  assert.equal(r.success, true, r.error);
  assert.deepEqual(r.rows, [["on", "repeatable read", "30s", "on"]]);
  const slow = await callTool(ws, "sql_query", {
    connection: "slow",
    sql: "SELECT current_setting('statement_timeout') AS t",
  });
  assert.deepEqual(slow.rows, [["1s"]]);
  assert.deepEqual(transactionPrologue(1000), [
    "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
    "SET LOCAL statement_timeout = 1000",
    "SELECT 1",
  ]);
  // The extended query protocol: the server itself refuses two statements in one string.
  const multi = await runPostgres(
    {
      name: "raw",
      origin: "test",
      timeoutMs: 5000,
      engine: "postgres",
      host: server.host,
      port: server.port,
      user: READER,
      database: "app",
    },
    { sql: "SELECT 1; SELECT 2", limit: 5, timeoutMs: 5000 },
  ).catch((e: Error) => e);
  assert.match(String(multi), /cannot insert multiple commands into a prepared statement/);
});

test("statement timeout: a slow statement is cancelled by the server after the connection's timeout", async () => {
  const started = Date.now();
  const r = await callTool(ws, "sql_query", { connection: "slow", sql: "SELECT pg_sleep(10)" });
  const took = Date.now() - started;
  assert.equal(r.success, false);
  assert.equal(r.kind, "timeout");
  assert.match(
    r.error!,
    /statement timed out after 1 s and was cancelled by the server \(canceling statement due to statement timeout\)/,
  );
  assert.ok(took < 6000, `took ${took} ms`);
});

test("sql_query: ASCII table, 100 rows by default with a note, limit, types", async () => {
  const r = await callTool(ws, "sql_query", { sql: "SELECT id, owner, balance, created FROM accounts ORDER BY id" });
  assert.equal(r.success, true, r.error);
  const lines = r.output.split("\n");
  assert.equal(lines[1], "| id  | owner   | balance | created                  |");
  assert.equal(lines[3], "|   1 | user1   | 1.50    | 2024-01-01T00:00:00.000Z |");
  assert.equal(r.row_count, 100);
  assert.equal(r.more, true);
  assert.match(lines[lines.length - 1], /^100 rows shown; more exist \(limit 100\)/);
  const all = await callTool(ws, "sql_query", { sql: "SELECT id FROM accounts", limit: 1000 });
  assert.equal(all.row_count, 250);
  assert.equal(all.more, false);
  const five = await callTool(ws, "sql_query", { sql: "SELECT id, note FROM audit ORDER BY id", limit: 5 });
  assert.deepEqual(five.rows, [
    [1, "first"],
    [2, null],
  ]);
  assert.match(five.output, /\(2 rows\)$/);
  const types = await callTool(ws, "sql_query", {
    sql: "SELECT 9007199254740993::bigint AS big, '\\xdead'::bytea AS b, ARRAY[1,2] AS arr, '{\"a\":1}'::jsonb AS j, true AS t",
  });
  assert.deepEqual(types.rows, [["9007199254740993", { blob: 2, hex: "dead" }, "[1,2]", '{"a":1}', true]]);
  const show = await callTool(ws, "sql_query", { sql: "SHOW search_path" });
  assert.equal(show.success, true, show.error);
  const refusedReason = await callTool(ws, "sql_query", { sql: "SELECT * FROM missing_table" });
  assert.match(
    refusedReason.error!,
    /^PostgreSQL error 42P01: relation "missing_table" does not exist \(at character 15\)/,
  );
});

test("sql_tables and sql_describe read the catalog as the SELECT-only role", async () => {
  const t = await callTool(ws, "sql_tables", {});
  assert.equal(t.success, true, t.error);
  assert.deepEqual(t.tables, [
    ["public", "accounts", "table"],
    ["public", "audit", "table"],
    ["public", "rich", "view"],
    ["sales", "orders", "table"],
  ]);
  const f = await callTool(ws, "sql_tables", { pattern: "sales.%" });
  assert.deepEqual(f.tables, [["sales", "orders", "table"]]);
  const d = await callTool(ws, "sql_describe", { table: "accounts" });
  assert.equal(d.success, true, d.error);
  assert.deepEqual(d.rows, [
    ["id", "integer", "NO", "nextval('accounts_id_seq'::regclass)", "PK"],
    ["owner", "text", "NO", null, ""],
    ["balance", "numeric(12,2)", "NO", "0", ""],
    ["created", "timestamp with time zone", "YES", "'2024-01-01 00:00:00+00'::timestamp with time zone", ""],
  ]);
  const o = await callTool(ws, "sql_describe", { table: "sales.orders" });
  assert.equal(o.rows && (o.rows as unknown[][]).length, 3);
  const miss = await callTool(ws, "sql_describe", { table: "acounts" });
  assert.match(
    miss.error!,
    /table or view "acounts" not found on connection reader \(postgres\); similar names: public\.accounts/,
  );
});

test("connection errors name the server and the reason", async () => {
  const closed = tempTree(
    {
      ".rt/config.json": JSON.stringify({
        databases: { gone: { type: "postgres", host: "127.0.0.1", port: 1, user: "x", database: "y" } },
      }),
    },
    "rt-pg-",
  );
  trustFolder(closed, { HOME: closed });
  const r = await callTool(createWorkspace({ root: closed, env: { HOME: closed } }), "sql_query", { sql: "SELECT 1" });
  assert.equal(r.success, false);
  assert.match(r.error!, /^could not connect to PostgreSQL: connect ECONNREFUSED 127\.0\.0\.1:1/);
  const bad = await callTool(ws, "sql_query", { connection: "reader", sql: "SELECT 1 FROM pg_authid" });
  assert.equal(bad.success, false);
  assert.match(bad.error!, /^refused by PostgreSQL: permission denied for table pg_authid/);
});

test("rt sql with DATABASE_URL, and with the PG* variables", async () => {
  const dir = tempTree({}, "rt-pg-cli-");
  const clean = { HOME: dir, SQLITE_DB: undefined, PGPASSWORD: undefined, PGSSLMODE: undefined };
  const a = await rt(["sql", "SELECT count(*) AS n FROM accounts"], {
    cwd: dir,
    env: {
      ...clean,
      DATABASE_URL: server.url(READER, "app"),
      PGHOST: undefined,
      PGPORT: undefined,
      PGUSER: undefined,
      PGDATABASE: undefined,
    },
  });
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, "+-----+\n| n   |\n+-----+\n| 250 |\n+-----+\n(1 row)\n");
  const b = await rt(["sql-tables", "acc"], {
    cwd: dir,
    env: {
      ...clean,
      DATABASE_URL: undefined,
      PGHOST: server.host,
      PGPORT: String(server.port),
      PGUSER: READER,
      PGDATABASE: "app",
    },
  });
  assert.equal(b.code, 0, b.stderr);
  assert.match(b.stdout, /\| public \| accounts \| table \|/);
  const c = await rt(["sql", "COMMIT; DELETE FROM accounts"], {
    cwd: dir,
    env: { ...clean, DATABASE_URL: server.url(READER, "app") },
  });
  assert.equal(c.code, 1);
  assert.match(c.stderr, /refused: one statement per call/);
});

test("the documented SELECT-only role is the one these tests use", () => {
  const page = fs.readFileSync(path.join(REPO, "docs", "databases.md"), "utf8");
  assert.ok(
    page.includes(READER_ROLE_SQL),
    "docs/databases.md must contain the role SQL of test/db/pgFixture.ts verbatim",
  );
});
