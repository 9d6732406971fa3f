// The PostgreSQL check on libpg_query's parse tree, without a server: the places
// a call can hide, what the tree decides that the old lexer could not, and that
// the parser is loaded only for PostgreSQL statements.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { REPO } from "../helpers.ts";
import { checkSql } from "../../src/db/checkSql.ts";

async function verdict(sql: string): Promise<string> {
  const r = await checkSql(sql, "postgres");
  return r.ok ? "ok" : r.reason;
}

test("a call is found wherever the grammar lets an expression stand", async () => {
  const places = [
    "SELECT 1::int4#pg_reload_conf()::int",
    "SELECT x#pg_reload_conf() FROM t",
    "SELECT pg_catalog . pg_reload_conf ( )",
    'SELECT "pg_catalog"."pg_reload_conf"()',
    "SELECT PG_RELOAD_CONF()",
    'SELECT U&"\\0070g_reload_conf"()',
    "SELECT U&\"!0070g_reload_conf\" UESCAPE '!'()",
    "SELECT pg_reload_conf/* x /* nested */ y */()",
    "SELECT ((((pg_reload_conf()))))",
    "SELECT CAST(pg_reload_conf() AS int)",
    "SELECT 1 OPERATOR(pg_catalog.+) pg_reload_conf()::int",
    "SELECT * FROM pg_reload_conf()",
    "SELECT * FROM ROWS FROM (generate_series(1, 2), pg_reload_conf())",
    "SELECT * FROM t, LATERAL (SELECT pg_reload_conf()) l",
    "WITH c AS (SELECT pg_reload_conf()) TABLE c",
    "SELECT * FROM t ORDER BY pg_reload_conf()",
    "SELECT sum(x) OVER (PARTITION BY pg_reload_conf()) FROM t",
    "SELECT sum(x) OVER w FROM t WINDOW w AS (ORDER BY pg_reload_conf())",
    "SELECT count(*) FILTER (WHERE pg_reload_conf()) FROM t",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY pg_reload_conf()::int) FROM t",
    "SELECT * FROM t GROUP BY GROUPING SETS ((pg_reload_conf()))",
    "SELECT * FROM t WHERE EXISTS (SELECT 1 WHERE pg_reload_conf())",
    "SELECT * FROM t WHERE x = ANY (SELECT pg_reload_conf()::int)",
    "SELECT * FROM t LIMIT pg_reload_conf()::int",
    "VALUES (pg_reload_conf())",
    "SELECT (ARRAY[pg_reload_conf()])[1]",
    "SELECT (pg_reload_conf(), 1)",
    "SELECT * FROM XMLTABLE('/a' PASSING (pg_reload_conf()::text::xml) COLUMNS x int)",
    "SELECT JSON_OBJECT('a': pg_reload_conf())",
    "SELECT * FROM t TABLESAMPLE bernoulli (pg_reload_conf()::int)",
    "EXPLAIN SELECT pg_reload_conf()",
    "EXPLAIN INSERT INTO t VALUES (DEFAULT, pg_reload_conf())",
  ];
  for (const sql of places)
    assert.match(
      await verdict(sql),
      /^pg_reload_conf\(\) administers the server; refused$|^"?pg_catalog"?\.pg_reload_conf\(\) administers/,
      sql,
    );
});

test("attribute notation (t.f is f(t)) and a TABLESAMPLE method are refused under a denied name", async () => {
  assert.match(await verdict("SELECT t.nextval FROM t"), /t\.nextval may call nextval\(\) in attribute notation/);
  assert.match(await verdict("SELECT (t).ts_stat FROM t"), /ts_stat may call ts_stat\(\) in attribute notation/);
  assert.match(await verdict("SELECT * FROM t TABLESAMPLE dblink (1)"), /^dblink\(\) opens a second connection/);
  assert.equal(await verdict("SELECT nextval FROM t"), "ok", "a plain column of that name is not a call");
});

test("names inside strings, comments and dollar quotes are not calls; nothing but one query passes", async () => {
  for (const sql of [
    "SELECT 'pg_reload_conf()'",
    "SELECT $$ pg_reload_conf() $$",
    "SELECT $tag$ '; SELECT pg_reload_conf(); $tag$",
    "SELECT 1 -- pg_reload_conf()",
    "SELECT 1 /* /* */ pg_reload_conf() */",
    "SELECT E'\\'; pg_reload_conf()'",
    "SELECT 'pg_reload_conf'::regproc",
    "SHOW search_path",
    "TABLE t",
    "(SELECT 1) UNION (SELECT 2)",
    "EXPLAIN (ANALYZE, BUFFERS) SELECT 1",
    "EXPLAIN DELETE FROM t",
  ]) {
    assert.equal(await verdict(sql), "ok", sql);
  }
  assert.match(
    await verdict("SELECT 1; SELECT pg_reload_conf()"),
    /one statement per call: this text holds 2 statements \(the second is "SELECT pg_reload_conf\(\)"\)/,
  );
  assert.match(await verdict("SELECT 1 /* */ ; /* */"), /^ok$/);
  assert.match(await verdict("  ;; -- nothing\n"), /empty/);
  assert.match(
    await verdict("SELECT 1 +"),
    /PostgreSQL's parser cannot read this SQL \(syntax error at end of input at character 11\)/,
  );
});

test("a refused statement kind names the denied functions it calls too", async () => {
  assert.match(
    await verdict("CREATE TABLE x (a text DEFAULT pg_reload_conf()::text)"),
    /^CREATE changes the schema.*; it also calls pg_reload_conf\(\) administers the server$/,
  );
  assert.match(
    await verdict("WITH d AS (SELECT 1) DELETE FROM t WHERE pg_terminate_backend(1)"),
    /^the query contains DELETE.*; it also calls pg_terminate_backend\(\) signals other server sessions$/,
  );
  assert.match(await verdict("SELECT * FROM (SELECT * FROM t FOR UPDATE) s"), /FOR UPDATE locks rows/);
  assert.match(await verdict("SELECT * FROM t FOR KEY SHARE"), /FOR KEY SHARE locks rows/);
  assert.match(await verdict("SELECT 1 INTO TEMP x"), /SELECT \.\.\. INTO creates a table/);
  assert.match(
    await verdict("SELECT * FROM (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d) s"),
    /syntax error|contains DELETE/,
  );
  assert.match(await verdict("SET TRANSACTION READ WRITE"), /transaction's mode/);
  assert.match(await verdict("NOTIFY c"), /NOTIFY sends a notification/);
  assert.match(await verdict("DECLARE c CURSOR FOR SELECT 1"), /DECLARE/);
});

test("a very deep expression is checked without overflowing the stack", async () => {
  const deep = `SELECT ${Array.from({ length: 5000 }, () => "1").join(" + ")} + pg_reload_conf()::int`;
  assert.match(await verdict(deep), /pg_reload_conf\(\)|cannot read this SQL/);
  const nested = `SELECT ${"(".repeat(3000)}pg_reload_conf()${")".repeat(3000)}`;
  assert.match(await verdict(nested), /pg_reload_conf\(\)|cannot read this SQL/);
});

test("the parser is loaded by the first PostgreSQL statement checked, never for the other dialects", () => {
  const script = `
    const { createRequire } = await import("node:module");
    const { checkSql } = await import(${JSON.stringify(path.join(REPO, "src", "db", "checkSql.ts"))});
    const require = createRequire(${JSON.stringify(path.join(REPO, "package.json"))});
    const loaded = () => Object.keys(require.cache).some((k) => k.includes("node_modules/libpg-query/"));
    const a = await checkSql("SELECT 1", "sqlite");
    const before = loaded();
    const b = await checkSql("SELECT 1", "postgres");
    console.log(JSON.stringify({ a: a.ok, b: b.ok, before, after: loaded() }));
  `;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    cwd: REPO,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { a: true, b: true, before: false, after: true });
});
