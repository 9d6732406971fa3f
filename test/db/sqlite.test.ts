// SQLite, for real: a database file made here, the corpus of mutation and
// escape attempts run through the tool and, bypassing rt's statement check,
// straight into the engine; the directory's checksum never moves.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { rt, tempTree, treeHash } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { runSqlite } from "../../src/db/sqlite.ts";
import { ATTEMPTS, sqlFor } from "./corpus.ts";

function makeDb(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.exec(`
    CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, balance REAL NOT NULL DEFAULT 0, avatar BLOB, big INTEGER);
    CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, note TEXT);
    CREATE VIEW rich AS SELECT * FROM accounts WHERE balance > 300;
    CREATE INDEX accounts_owner ON accounts (owner);
  `);
  const ins = db.prepare("INSERT INTO accounts (owner, balance, avatar, big) VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    for (let i = 1; i <= 250; i++)
      ins.run(`user${i}`, i * 1.5, i === 1 ? Buffer.from("hello") : null, i === 2 ? 2n ** 60n : i);
  })();
  db.prepare("INSERT INTO audit (note) VALUES (?), (?)").run("first", "multi\nline");
  db.close();
}

function setup(extra: Record<string, unknown> = {}) {
  const root = tempTree({}, "rt-sqlite-");
  const dataDir = path.join(root, "data");
  const file = path.join(dataDir, "app.db");
  makeDb(file);
  fs.mkdirSync(path.join(root, ".rt"), { recursive: true });
  fs.writeFileSync(
    path.join(root, ".rt", "config.json"),
    JSON.stringify({
      databases: {
        app: { type: "sqlite", path: "data/app.db" },
        slow: { type: "sqlite", path: "data/app.db", timeout_ms: 1000 },
        ...extra,
      },
      default_database: "app",
    }),
  );
  const ws = createWorkspace({ root, env: { HOME: root } });
  return { root, dataDir, file, ws };
}

test("corpus: every attempt is refused with a reason, and the database directory is unchanged after each", async (t) => {
  const { ws, dataDir } = setup();
  const before = treeHash(dataDir);
  let refusedByRt = 0;
  for (const a of ATTEMPTS) {
    const sql = sqlFor(a, "sqlite", { OUT: dataDir, PORT: "1" });
    const r = await callTool(ws, "sql_query", { sql });
    assert.equal(r.success, false, `${a.id}: expected a refusal, got:\n${r.output}`);
    assert.ok(typeof r.error === "string" && r.error.length > 20, `${a.id}: a refusal must carry a reason`);
    if (r.refused_by === "rt") refusedByRt++;
    assert.equal(treeHash(dataDir), before, `${a.id} changed the database directory`);
    t.diagnostic(`${a.id}: ${r.error}`);
  }
  assert.ok(ATTEMPTS.length >= 40);
  // The rest are PostgreSQL's functions and syntax, which SQLite itself refuses.
  t.diagnostic(`${refusedByRt} of ${ATTEMPTS.length} refused by rt's check, the others by SQLite`);
});

test("corpus, engine only: with rt's check bypassed, SQLite itself refuses every attempt and nothing changes", async (t) => {
  const { dataDir, file } = setup();
  const before = treeHash(dataDir);
  for (const a of ATTEMPTS) {
    const sql = sqlFor(a, "sqlite", { OUT: dataDir, PORT: "1" });
    let outcome: string;
    try {
      const res = await runSqlite(file, { sql, limit: 5, timeoutMs: 10_000 });
      assert.fail(`${a.id}: SQLite ran it: ${JSON.stringify(res)}`);
    } catch (e) {
      if (e instanceof assert.AssertionError) throw e;
      outcome = (e as Error).message;
      assert.ok(outcome.length > 10, `${a.id}: no reason`);
    }
    assert.equal(treeHash(dataDir), before, `${a.id} changed the database directory`);
    t.diagnostic(`${a.id}: ${outcome}`);
  }
});

test("the engine layer: not-read-only and non-query statements are refused by SQLite's own report", async () => {
  const { file } = setup();
  const run = (sql: string) => runSqlite(file, { sql, limit: 5, timeoutMs: 10_000 });
  await assert.rejects(
    run("DELETE FROM accounts"),
    /refused by SQLite: SQLite reports this statement as one that writes \(sqlite3_stmt_readonly is false\)/,
  );
  await assert.rejects(run("VACUUM INTO '/tmp/x.db'"), /sqlite3_stmt_readonly is false/);
  await assert.rejects(run("PRAGMA query_only = 0"), /returns no rows, so it is not a query/);
  await assert.rejects(run("ATTACH ':memory:' AS m"), /returns no rows, so it is not a query/);
  await assert.rejects(
    run("SELECT 1; SELECT 2"),
    /refused by SQLite: The supplied SQL string contains more than one statement/,
  );
  // query_only is on when the statement runs, and trusted_schema is off.
  const q = await run(
    "SELECT (SELECT query_only FROM pragma_query_only) AS q, (SELECT trusted_schema FROM pragma_trusted_schema) AS t",
  );
  assert.deepEqual(q.rows, [[1, 0]]);
});

test("sql_query: an ASCII table, 100 rows by default with a note when more exist", async () => {
  const { ws } = setup();
  const r = await callTool(ws, "sql_query", { sql: "SELECT id, owner, balance FROM accounts ORDER BY id" });
  assert.equal(r.success, true, r.error);
  const lines = r.output.split("\n");
  assert.equal(lines[0], "+-----+---------+---------+");
  assert.equal(lines[1], "| id  | owner   | balance |");
  assert.equal(lines[3], "|   1 | user1   |     1.5 |");
  assert.equal(lines.filter((l) => l.startsWith("| ")).length, 101);
  assert.match(
    lines[lines.length - 1],
    /^100 rows shown; more exist \(limit 100\)\. Pass a higher limit \(at most 10000\)/,
  );
  assert.equal(r.more, true);
  assert.equal(r.row_count, 100);
  assert.deepEqual(r.columns, ["id", "owner", "balance"]);

  const all = await callTool(ws, "sql_query", { sql: "SELECT id FROM accounts", limit: 300 });
  assert.equal(all.more, false);
  assert.match(all.output, /\n\(250 rows\)$/);
  const exact = await callTool(ws, "sql_query", { sql: "SELECT id FROM accounts LIMIT 5", limit: 5 });
  assert.equal(exact.more, false, "exactly `limit` rows: no note");
  assert.match(exact.output, /\(5 rows\)$/);
  const none = await callTool(ws, "sql_query", { sql: "SELECT id FROM accounts WHERE id < 0" });
  assert.match(none.output, /\| id \|\n\+----\+\n\+----\+\n\(0 rows\)/);
});

test("sql_query: NULL, blobs, big integers, newlines and parameters of every kind shown faithfully", async () => {
  const { ws } = setup();
  const r = await callTool(ws, "sql_query", {
    sql: "SELECT a.avatar, a.big, u.note FROM accounts a JOIN audit u ON u.id = a.id WHERE a.id IN (1, 2) ORDER BY a.id",
  });
  assert.equal(r.success, true, r.error);
  assert.match(r.output, /\| <blob 5 bytes: 68656c6c6f> \| 1                   \| first       \|/);
  assert.match(r.output, /\| NULL                       \| 1152921504606846976 \| multi\\nline \|/);
  assert.deepEqual(r.rows, [
    [{ blob: 5, hex: "68656c6c6f" }, 1, "first"],
    [null, "1152921504606846976", "multi\nline"],
  ]);
});

test("sql_query through the policy works in the safe-read-only profile (the tool is read-only)", async () => {
  const { root } = setup();
  const ws = createWorkspace({ root, env: { HOME: root }, profile: "safe-read-only" });
  const r = await callTool(ws, "sql_query", { sql: "SELECT count(*) AS n FROM accounts" });
  assert.equal(r.success, true, r.error);
  assert.match(r.output, /\| 250 \|/);
});

test("statement timeout: a runaway query is stopped after the connection's timeout", async () => {
  const { ws, dataDir } = setup();
  const before = treeHash(dataDir);
  const started = Date.now();
  const r = await callTool(ws, "sql_query", {
    connection: "slow",
    sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
  });
  const took = Date.now() - started;
  assert.equal(r.success, false);
  assert.match(
    r.error!,
    /statement timed out after 1 s and was stopped; narrow the query \(WHERE, LIMIT\) or raise the connection's timeout_ms/,
  );
  assert.equal(r.kind, "timeout");
  assert.ok(took >= 1000 && took < 8000, `took ${took} ms`);
  assert.equal(treeHash(dataDir), before);
});

test("a missing database file is an error, and is not created", async () => {
  const root = tempTree(
    { ".rt/config.json": JSON.stringify({ databases: { gone: { type: "sqlite", path: "nope/missing.db" } } }) },
    "rt-sqlite-",
  );
  const ws = createWorkspace({ root, env: { HOME: root } });
  const r = await callTool(ws, "sql_query", { sql: "SELECT 1" });
  assert.equal(r.success, false);
  assert.match(
    r.error!,
    /the SQLite database .*nope\/missing\.db does not exist; rt opens existing databases read-only and never creates one/,
  );
  assert.equal(fs.existsSync(path.join(root, "nope")), false);
});

test("a directory given as the database file is a clear error", async () => {
  const root = tempTree(
    {
      "data/keep.txt": "x",
      ".rt/config.json": JSON.stringify({ databases: { dir: { type: "sqlite", path: "data" } } }),
    },
    "rt-sqlite-",
  );
  const ws = createWorkspace({ root, env: { HOME: root } });
  const before = treeHash(root);
  const r = await callTool(ws, "sql_query", { sql: "SELECT 1" });
  assert.equal(r.success, false);
  assert.match(r.error!, /the SQLite database .*\/data is a directory, not a database file/);
  assert.equal(treeHash(root), before);
});

test("sql_tables: tables and views, filtered by pattern", async () => {
  const { ws } = setup();
  const r = await callTool(ws, "sql_tables", {});
  assert.equal(r.success, true, r.error);
  assert.equal(
    r.output,
    [
      "+----------+-------+",
      "| name     | type  |",
      "+----------+-------+",
      "| accounts | table |",
      "| audit    | table |",
      "| rich     | view  |",
      "+----------+-------+",
      "(3 tables)",
    ].join("\n"),
  );
  const f = await callTool(ws, "sql_tables", { pattern: "AUD" });
  assert.deepEqual(f.tables, [["audit", "table"]]);
  const g = await callTool(ws, "sql_tables", { pattern: "r*h" });
  assert.deepEqual(g.tables, [["rich", "view"]]);
  const none = await callTool(ws, "sql_tables", { pattern: "zzz" });
  assert.equal(none.success, true);
  assert.match(none.output, /^no table or view matches "zzz" on app \(sqlite, /);
});

test("sql_describe: columns with type, nullability, default and primary key; unknown tables suggest names", async () => {
  const { ws } = setup();
  const r = await callTool(ws, "sql_describe", { table: "accounts" });
  assert.equal(r.success, true, r.error);
  assert.equal(
    r.output,
    [
      "accounts",
      "+---------+---------+----------+---------+-----+",
      "| column  | type    | nullable | default | key |",
      "+---------+---------+----------+---------+-----+",
      "| id      | INTEGER | YES      | NULL    | PK  |",
      "| owner   | TEXT    | NO       | NULL    |     |",
      "| balance | REAL    | NO       | 0       |     |",
      "| avatar  | BLOB    | YES      | NULL    |     |",
      "| big     | INTEGER | YES      | NULL    |     |",
      "+---------+---------+----------+---------+-----+",
      "(5 columns)",
    ].join("\n"),
  );
  const q = await callTool(ws, "sql_describe", { table: "main.rich" });
  assert.equal(q.success, true, q.error);
  const miss = await callTool(ws, "sql_describe", { table: "acount" });
  assert.equal(miss.success, false);
  assert.match(
    miss.error!,
    /table or view "acount" not found on connection app \(sqlite\); similar names: accounts\. sql_tables lists them/,
  );
  const bad = await callTool(ws, "sql_describe", { table: "x; DROP TABLE accounts" });
  assert.match(bad.error!, /cannot read the table name/);
});

test("rt sql, rt sql-tables, rt sql-describe on the command line (SQLITE_DB)", async () => {
  const root = tempTree({}, "rt-sqlite-cli-");
  makeDb(path.join(root, "app.db"));
  const env = {
    HOME: root,
    SQLITE_DB: "app.db",
    DATABASE_URL: undefined,
    PGHOST: undefined,
    PGDATABASE: undefined,
    PGUSER: undefined,
    PGPORT: undefined,
  };
  const q = await rt(["sql", "SELECT owner FROM accounts ORDER BY id", "--limit", "2"], { cwd: root, env });
  assert.equal(q.code, 0, q.stderr);
  assert.equal(
    q.stdout,
    "+-------+\n| owner |\n+-------+\n| user1 |\n| user2 |\n+-------+\n2 rows shown; more exist (limit 2). Pass a higher limit (at most 10000) or narrow the query (WHERE, LIMIT, aggregates).\n",
  );
  const w = await rt(["sql", "DELETE FROM accounts"], { cwd: root, env });
  assert.equal(w.code, 1);
  assert.match(w.stderr, /^rt sql: refused: DELETE changes data/);
  const tl = await rt(["sql-tables", "acc", "--connection", "sqlite"], { cwd: root, env });
  assert.equal(tl.code, 0, tl.stderr);
  assert.match(tl.stdout, /\| accounts \| table \|/);
  const d = await rt(["sql-describe", "audit"], { cwd: root, env });
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /\| note   \| TEXT    \| YES      \| NULL    \|     \|/);
  const u = await rt(["sql"], { cwd: root, env });
  assert.equal(u.code, 2);
  assert.match(u.stderr, /missing SQL/);
  const c = await rt(["sql", "SELECT 1", "--connection", "nope"], { cwd: root, env });
  assert.equal(c.code, 1);
  assert.match(
    c.stderr,
    /unknown connection "nope"; configured connections: sqlite \(sqlite, .*app\.db; from SQLITE_DB\)/,
  );
});
