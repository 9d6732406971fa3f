// The statement check, read without running anything: one table of cases per
// dialect, including Oracle and Vertica, which have no server here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkSql } from "../../src/db/checkSql.ts";
import { splitQualifiedName, splitStatements, tokenize, type Dialect } from "../../src/db/sqlText.ts";

async function allowed(sql: string, dialect: Dialect) {
  const r = await checkSql(sql, dialect);
  assert.ok(r.ok, `${dialect}: expected allowed: ${sql}\n  got: ${r.ok ? "" : r.reason}`);
  return r;
}

async function refused(sql: string, dialect: Dialect, reason: RegExp) {
  const r = await checkSql(sql, dialect);
  assert.ok(!r.ok, `${dialect}: expected refused: ${sql}`);
  assert.match(r.reason, reason, `${dialect}: ${sql}`);
}

const ALL: Dialect[] = ["sqlite", "postgres", "oracle", "vertica"];

test("plain queries pass in every dialect, with comments, strings and a final semicolon", async () => {
  for (const d of ALL) {
    await allowed("SELECT 1 FROM dual", d);
    await allowed("select * from accounts where owner = 'it''s; DELETE' -- DELETE\n;", d);
    await allowed("/* DROP TABLE x; */ SELECT count(*) FROM t", d);
    await allowed("WITH a AS (SELECT 1 AS x) SELECT x FROM a", d);
    await allowed('SELECT "delete", "update" FROM t', d);
    await allowed("SELECT updated_at, deleted, inserted_by FROM t", d);
    await allowed("(SELECT 1)", d);
  }
  await allowed("VALUES (1), (2)", "postgres");
  await allowed("TABLE accounts", "postgres");
  await allowed("SHOW search_path", "postgres");
  await allowed("EXPLAIN SELECT * FROM t", "postgres");
  await allowed("EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t", "postgres");
  await allowed("EXPLAIN QUERY PLAN SELECT * FROM t", "sqlite");
  await allowed("SELECT $tag$ ; DELETE FROM t; $tag$ AS s", "postgres");
  await allowed("SELECT E'\\'; DELETE FROM t; --' AS s", "postgres");
  await allowed("SELECT q'[it's; DELETE FROM t]' FROM dual", "oracle");
  await allowed("SELECT replace(name, 'a', 'b') FROM t", "postgres");
  await allowed("SELECT substring(x FROM 1 FOR 2) FROM t", "postgres");
  await allowed("SELECT [weird name] FROM `t`", "sqlite");
  await allowed("SELECT /*+ INDEX(t i) */ * FROM t", "oracle");
});

test("the checked statement is returned without surrounding comments and semicolons", async () => {
  const r = await allowed("  -- note\n SELECT 1 FROM dual ; ; ", "oracle");
  assert.equal(r.ok && r.statement, "SELECT 1 FROM dual");
});

test("several statements are refused, naming the second", async () => {
  for (const d of ALL) {
    await refused(
      "SELECT 1; DELETE FROM t",
      d,
      /one statement per call: this text holds 2 statements \(the second is "DELETE FROM t"\)/,
    );
    await refused("SELECT 'a;b'; SELECT 2", d, /2 statements/);
  }
  // A backslash does not escape a quote in a standard string: the text holds three statements for the engine.
  await refused("SELECT '\\'; DELETE FROM t; --'", "postgres", /statements/);
  await refused("SELECT $$;$$; DELETE FROM t", "postgres", /2 statements/);
  // SQLite does not nest comments: the DELETE is outside the comment.
  await refused("SELECT 1 /* /* */ ; DELETE FROM t; -- */", "sqlite", /2 statements/);
  await allowed("SELECT 1 /* /* */ ; DELETE FROM t; -- */", "postgres");
});

test("writes, DDL, transaction control and session changes are refused with a reason", async () => {
  for (const d of ALL) {
    await refused("DELETE FROM t", d, /DELETE changes data/);
    await refused("dElEtE fRoM t", d, /DELETE changes data/);
    await refused("UPDATE t SET a = 1", d, /UPDATE changes data/);
    await refused("INSERT INTO t VALUES (1)", d, /INSERT changes data/);
    await refused("DROP TABLE t", d, /DROP changes the schema/);
    await refused("CREATE TEMP TABLE x AS SELECT 1", d, /CREATE changes the schema/);
    await refused("COMMIT", d, /transaction control/);
    await refused("ROLLBACK", d, /transaction control/);
    await refused("SET TRANSACTION READ WRITE", d, /transaction's mode/);
    await refused(
      "DEL/**/ETE FROM t",
      d,
      d === "postgres"
        ? /PostgreSQL's parser cannot read this SQL \(syntax error at or near "DEL" at character 1\)/
        : /starts with DEL/,
    );
    await refused("/* SELECT */ DELETE FROM t", d, /DELETE changes data/);
    await refused("-- SELECT\nDELETE FROM t", d, /DELETE changes data/);
    await refused("SELECT * FROM t FOR UPDATE", d, /FOR UPDATE locks rows/);
    await refused("WITH x AS (SELECT 1) DELETE FROM t", d, /contains DELETE/);
    await refused("SELECT * INTO t2 FROM t", d, /INTO creates a table/);
    await refused("", d, /empty/);
    await refused("-- nothing\n;", d, /empty/);
    await refused(
      "SELECT 'unterminated",
      d,
      d === "postgres"
        ? /cannot read this SQL \(unterminated quoted string/
        : /could not be read safely \(unterminated string/,
    );
    await refused(
      "SELECT 1 /* unterminated",
      d,
      d === "postgres" ? /cannot read this SQL \(unterminated \/\* comment/ : /unterminated \/\* comment/,
    );
  }
  await refused("WITH g AS (DELETE FROM t RETURNING *) SELECT * FROM g", "postgres", /contains DELETE/);
  await refused("BEGIN READ WRITE", "postgres", /transaction control/);
  await refused("SET default_transaction_read_only = off", "postgres", /SET changes session or transaction settings/);
  await refused("RESET ALL", "postgres", /RESET/);
  await refused("COPY (SELECT 1) TO PROGRAM 'touch /tmp/x'", "postgres", /COPY reads or writes files or programs/);
  await refused("DO $$ BEGIN DELETE FROM t; END $$", "postgres", /DO runs procedural code/);
  await refused("CALL p()", "postgres", /CALL runs a stored procedure/);
  await refused(
    "EXPLAIN ANALYZE DELETE FROM t",
    "postgres",
    /EXPLAIN ANALYZE of DELETE is refused: ANALYZE runs the statement/,
  );
  await refused("EXPLAIN (ANALYZE) UPDATE t SET a = 1", "postgres", /EXPLAIN ANALYZE of UPDATE is refused/);
  await refused(
    "EXPLAIN (ANALYZE on, COSTS off) INSERT INTO t VALUES (1)",
    "postgres",
    /EXPLAIN ANALYZE of INSERT is refused/,
  );
  await refused(
    "EXPLAIN (ANALYZE 'yes') MERGE INTO t USING s ON true WHEN MATCHED THEN DELETE",
    "postgres",
    /EXPLAIN ANALYZE of MERGE is refused/,
  );
  await refused(
    "EXPLAIN ANALYZE WITH g AS (DELETE FROM t RETURNING *) SELECT * FROM g",
    "postgres",
    /EXPLAIN ANALYZE runs the statement, and it contains a data-modifying statement/,
  );
  await refused("EXPLAIN CREATE TABLE x AS SELECT 1", "postgres", /EXPLAIN of CREATE TABLE AS is refused/);
  await refused("EXPLAIN EXECUTE p", "postgres", /EXPLAIN of EXECUTE is refused/);
  await refused("EXPLAIN DELETE FROM t WHERE id = nextval('s')", "postgres", /nextval\(\) advances or sets a sequence/);
  // Plain EXPLAIN plans a write without running it.
  await allowed("EXPLAIN DELETE FROM t", "postgres");
  await allowed("EXPLAIN (ANALYZE false, COSTS off) UPDATE t SET a = 1", "postgres");
  await allowed("EXPLAIN (ANALYZE off) WITH g AS (DELETE FROM t RETURNING *) SELECT * FROM g", "postgres");
  await refused("SELECT * FROM t FOR NO KEY UPDATE", "postgres", /FOR NO KEY UPDATE locks rows/);
  await refused("LOCK TABLE t", "postgres", /LOCK takes table locks/);
  await refused("PRAGMA query_only = 0", "sqlite", /PRAGMA can change the connection/);
  await refused("ATTACH 'x.db' AS x", "sqlite", /ATTACH attaches another database file/);
  await refused("VACUUM INTO '/tmp/x.db'", "sqlite", /VACUUM rewrites the database file/);
  await refused("REPLACE INTO t VALUES (1)", "sqlite", /REPLACE changes data/);
});

test("functions with effects outside the query are refused, however the name is written", async () => {
  await refused(
    "SELECT set_config('transaction_read_only', 'off', true)",
    "postgres",
    /set_config\(\) changes server or session settings/,
  );
  await refused("SELECT pg_catalog.set_config('a', 'b', false)", "postgres", /pg_catalog\.set_config\(\)/);
  await refused("SELECT \"set_config\"('a', 'b', false)", "postgres", /set_config\(\)/);
  // PostgreSQL's parser decodes the escapes: the call is set_config's, and the refusal names it.
  await refused(
    "SELECT U&\"\\0073et_config\"('a', 'b', false)",
    "postgres",
    /^set_config\(\) changes server or session settings/,
  );
  await refused("SELECT U&\"\\0073et_config\"('a', 'b', false)", "vertica", /Unicode-escaped names are refused/);
  await refused("SELECT pg_terminate_backend(pid) FROM pg_stat_activity", "postgres", /signals other server sessions/);
  await refused("SELECT lo_import('/etc/passwd')", "postgres", /large objects/);
  await refused(
    "SELECT * FROM dblink('dbname=x', 'DELETE FROM t') AS t(x int)",
    "postgres",
    /dblink\(\) opens a second connection/,
  );
  await refused("SELECT nextval('s')", "postgres", /advances or sets a sequence/);
  await refused("SELECT query_to_xml('DELETE FROM t', true, true, '')", "postgres", /runs SQL given as a string/);
  // Text-search and tablefunc functions that run their text argument as SQL, and index maintenance.
  await refused(
    "SELECT * FROM ts_stat('SELECT to_tsvector(pg_terminate_backend(pid)::text) FROM pg_stat_activity')",
    "postgres",
    /ts_stat\(\) runs SQL given as a string/,
  );
  await refused(
    "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery')",
    "postgres",
    /ts_rewrite\(\) runs SQL given as a string/,
  );
  await refused(
    "SELECT * FROM public.crosstab('SELECT 1') AS t(a int)",
    "postgres",
    /crosstab\(\) runs SQL given as a string/,
  );
  await refused("SELECT brin_summarize_new_values('i')", "postgres", /changes index storage/);
  await refused("SELECT gin_clean_pending_list('i')", "postgres", /changes index storage/);
  await refused("SELECT load_extension('/tmp/x.so')", "sqlite", /loads native code/);
  await refused(
    "SELECT DBMS_XMLGEN.GETXML('DELETE FROM t') FROM dual",
    "oracle",
    /DBMS_XMLGEN\.GETXML\(\) belongs to an Oracle DBMS_\/UTL_ package/,
  );
  await refused("SELECT sys.utl_http.request('http://x') FROM dual", "oracle", /UTL_HTTP/);
  await refused("SELECT CLOSE_ALL_SESSIONS()", "vertica", /ends or interrupts sessions/);
  await refused("SELECT EXPORT_TABLES('/tmp/x', 't')", "vertica", /writes files on the server/);
  // The same names as plain columns are fine.
  await allowed("SELECT nextval FROM t", "postgres");
});

test("Oracle: anonymous PL/SQL blocks and inline PL/SQL are refused", async () => {
  await refused("BEGIN DELETE FROM t; COMMIT; END;", "oracle", /anonymous PL\/SQL block/);
  await refused("DECLARE n NUMBER; BEGIN n := 1; END;", "oracle", /anonymous PL\/SQL block/);
  await refused("begin\n  execute immediate 'drop table t';\nend;\n/", "oracle", /anonymous PL\/SQL block/);
  await refused(
    "WITH FUNCTION f RETURN NUMBER IS PRAGMA AUTONOMOUS_TRANSACTION; BEGIN DELETE FROM t; COMMIT; RETURN 1; END; SELECT f FROM dual",
    "oracle",
    /WITH FUNCTION declares inline PL\/SQL/,
  );
  await refused("SELECT * FROM (WITH PROCEDURE p IS BEGIN NULL; END; SELECT 1 FROM dual)", "oracle", /WITH PROCEDURE/);
  await refused("EXEC purge_all", "oracle", /EXEC runs procedural code/);
  await refused("CALL purge_all()", "oracle", /CALL runs a stored procedure/);
  await refused("EXPLAIN PLAN FOR SELECT * FROM t", "oracle", /PLAN_TABLE/);
  await refused(
    "MERGE INTO t USING s ON (t.id = s.id) WHEN MATCHED THEN UPDATE SET t.a = s.a",
    "oracle",
    /MERGE changes data/,
  );
  await refused("ALTER SESSION SET CURRENT_SCHEMA = other", "oracle", /ALTER changes/);
  await refused("LOCK TABLE t IN EXCLUSIVE MODE", "oracle", /LOCK takes table locks/);
  await refused("SELECT * FROM t FOR UPDATE NOWAIT", "oracle", /FOR UPDATE locks rows/);
  await refused("SELECT 1 FROM dual; SELECT 2 FROM dual", "oracle", /one statement per call/);
  await refused("SHOW parameters", "oracle", /must start with SELECT, WITH/);
});

test("Vertica: procedural code, DML, COPY, EXPORT and multiple statements are refused", async () => {
  await refused("DO $$ BEGIN PERFORM 1; END $$", "vertica", /DO runs procedural code/);
  await refused("CALL p()", "vertica", /CALL runs a stored procedure/);
  await refused("COPY t FROM '/tmp/x'", "vertica", /COPY/);
  await refused("EXPORT TO PARQUET (directory = '/tmp/x') AS SELECT * FROM t", "vertica", /EXPORT writes data out/);
  await refused("SELECT 1; COMMIT", "vertica", /one statement per call/);
  await refused("TRUNCATE TABLE t", "vertica", /TRUNCATE changes data/);
  await refused("SELECT PURGE_TABLE('t')", "vertica", /changes or moves data/);
  await allowed("SHOW SESSION ALL", "vertica");
  await allowed("EXPLAIN SELECT * FROM t", "vertica");
});

test("tokenize: PostgreSQL nests block comments, the others do not", async () => {
  const words = (sql: string, d: Dialect) =>
    tokenize(sql, d)
      .filter((t) => t.kind === "word")
      .map((t) => t.value);
  assert.deepEqual(words("/* a /* b */ c */ SELECT", "postgres"), ["SELECT"]);
  assert.deepEqual(words("/* a /* b */ C */ SELECT", "sqlite"), ["C", "SELECT"]);
  assert.equal(splitStatements(tokenize(";;SELECT 1;;SELECT 2;", "postgres")).length, 2);
});

test("splitQualifiedName reads quoted and unquoted parts", async () => {
  assert.deepEqual(splitQualifiedName("sales.orders", "postgres"), {
    parts: ["sales", "orders"],
    quoted: [false, false],
  });
  assert.deepEqual(splitQualifiedName('"My Schema"."Order ""x"""', "postgres"), {
    parts: ["My Schema", 'Order "x"'],
    quoted: [true, true],
  });
  assert.equal(splitQualifiedName("a b", "postgres"), undefined);
  assert.equal(splitQualifiedName("a.", "postgres"), undefined);
  assert.equal(splitQualifiedName("x; DROP TABLE t", "sqlite"), undefined);
});
