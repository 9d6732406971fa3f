// The statement check, read without running anything: one table of cases per
// dialect, including Oracle and Vertica, which have no server here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkReadOnlySql, splitQualifiedName, splitStatements, tokenize, type Dialect } from "../../src/db/sqlText.ts";

function allowed(sql: string, dialect: Dialect) {
  const r = checkReadOnlySql(sql, dialect);
  assert.ok(r.ok, `${dialect}: expected allowed: ${sql}\n  got: ${r.ok ? "" : r.reason}`);
  return r;
}

function refused(sql: string, dialect: Dialect, reason: RegExp) {
  const r = checkReadOnlySql(sql, dialect);
  assert.ok(!r.ok, `${dialect}: expected refused: ${sql}`);
  assert.match(r.reason, reason, `${dialect}: ${sql}`);
}

const ALL: Dialect[] = ["sqlite", "postgres", "oracle", "vertica"];

test("plain queries pass in every dialect, with comments, strings and a final semicolon", () => {
  for (const d of ALL) {
    allowed("SELECT 1 FROM dual", d);
    allowed("select * from accounts where owner = 'it''s; DELETE' -- DELETE\n;", d);
    allowed("/* DROP TABLE x; */ SELECT count(*) FROM t", d);
    allowed("WITH a AS (SELECT 1 AS x) SELECT x FROM a", d);
    allowed("SELECT \"delete\", \"update\" FROM t", d);
    allowed("SELECT updated_at, deleted, inserted_by FROM t", d);
    allowed("(SELECT 1)", d);
  }
  allowed("VALUES (1), (2)", "postgres");
  allowed("TABLE accounts", "postgres");
  allowed("SHOW search_path", "postgres");
  allowed("EXPLAIN SELECT * FROM t", "postgres");
  allowed("EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t", "postgres");
  allowed("EXPLAIN QUERY PLAN SELECT * FROM t", "sqlite");
  allowed("SELECT $tag$ ; DELETE FROM t; $tag$ AS s", "postgres");
  allowed("SELECT E'\\'; DELETE FROM t; --' AS s", "postgres");
  allowed("SELECT q'[it's; DELETE FROM t]' FROM dual", "oracle");
  allowed("SELECT replace(name, 'a', 'b') FROM t", "postgres");
  allowed("SELECT substring(x FROM 1 FOR 2) FROM t", "postgres");
  allowed("SELECT [weird name] FROM `t`", "sqlite");
  allowed("SELECT /*+ INDEX(t i) */ * FROM t", "oracle");
});

test("the checked statement is returned without surrounding comments and semicolons", () => {
  const r = allowed("  -- note\n SELECT 1 FROM dual ; ; ", "oracle");
  assert.equal(r.ok && r.statement, "SELECT 1 FROM dual");
});

test("several statements are refused, naming the second", () => {
  for (const d of ALL) {
    refused("SELECT 1; DELETE FROM t", d, /one statement per call: this text holds 2 statements \(the second is "DELETE FROM t"\)/);
    refused("SELECT 'a;b'; SELECT 2", d, /2 statements/);
  }
  // A backslash does not escape a quote in a standard string: the text holds three statements for the engine.
  refused("SELECT '\\'; DELETE FROM t; --'", "postgres", /statements/);
  refused("SELECT $$;$$; DELETE FROM t", "postgres", /2 statements/);
  // SQLite does not nest comments: the DELETE is outside the comment.
  refused("SELECT 1 /* /* */ ; DELETE FROM t; -- */", "sqlite", /2 statements/);
  allowed("SELECT 1 /* /* */ ; DELETE FROM t; -- */", "postgres");
});

test("writes, DDL, transaction control and session changes are refused with a reason", () => {
  for (const d of ALL) {
    refused("DELETE FROM t", d, /DELETE changes data/);
    refused("dElEtE fRoM t", d, /DELETE changes data/);
    refused("UPDATE t SET a = 1", d, /UPDATE changes data/);
    refused("INSERT INTO t VALUES (1)", d, /INSERT changes data/);
    refused("DROP TABLE t", d, /DROP changes the schema/);
    refused("CREATE TEMP TABLE x AS SELECT 1", d, /CREATE changes the schema/);
    refused("COMMIT", d, /transaction control/);
    refused("ROLLBACK", d, /transaction control/);
    refused("SET TRANSACTION READ WRITE", d, /transaction's mode/);
    refused("DEL/**/ETE FROM t", d, /starts with DEL/);
    refused("/* SELECT */ DELETE FROM t", d, /DELETE changes data/);
    refused("-- SELECT\nDELETE FROM t", d, /DELETE changes data/);
    refused("SELECT * FROM t FOR UPDATE", d, /FOR UPDATE locks rows/);
    refused("WITH x AS (SELECT 1) DELETE FROM t", d, /contains DELETE/);
    refused("SELECT * INTO t2 FROM t", d, /INTO creates a table/);
    refused("", d, /empty/);
    refused("-- nothing\n;", d, /empty/);
    refused("SELECT 'unterminated", d, /could not be read safely \(unterminated string/);
    refused("SELECT 1 /* unterminated", d, /unterminated \/\* comment/);
  }
  refused("WITH g AS (DELETE FROM t RETURNING *) SELECT * FROM g", "postgres", /contains DELETE/);
  refused("BEGIN READ WRITE", "postgres", /transaction control/);
  refused("SET default_transaction_read_only = off", "postgres", /SET changes session or transaction settings/);
  refused("RESET ALL", "postgres", /RESET/);
  refused("COPY (SELECT 1) TO PROGRAM 'touch /tmp/x'", "postgres", /COPY reads or writes files or programs/);
  refused("DO $$ BEGIN DELETE FROM t; END $$", "postgres", /DO runs procedural code/);
  refused("CALL p()", "postgres", /CALL runs a stored procedure/);
  refused("EXPLAIN ANALYZE DELETE FROM t", "postgres", /EXPLAIN of DELETE is refused/);
  refused("EXPLAIN (ANALYZE) UPDATE t SET a = 1", "postgres", /EXPLAIN of UPDATE is refused/);
  refused("SELECT * FROM t FOR NO KEY UPDATE", "postgres", /FOR NO KEY UPDATE locks rows/);
  refused("LOCK TABLE t", "postgres", /LOCK takes table locks/);
  refused("PRAGMA query_only = 0", "sqlite", /PRAGMA can change the connection/);
  refused("ATTACH 'x.db' AS x", "sqlite", /ATTACH attaches another database file/);
  refused("VACUUM INTO '/tmp/x.db'", "sqlite", /VACUUM rewrites the database file/);
  refused("REPLACE INTO t VALUES (1)", "sqlite", /REPLACE changes data/);
});

test("functions with effects outside the query are refused, however the name is written", () => {
  refused("SELECT set_config('transaction_read_only', 'off', true)", "postgres", /set_config\(\) changes server or session settings/);
  refused("SELECT pg_catalog.set_config('a', 'b', false)", "postgres", /pg_catalog\.set_config\(\)/);
  refused('SELECT "set_config"(\'a\', \'b\', false)', "postgres", /set_config\(\)/);
  refused('SELECT U&"\\0073et_config"(\'a\', \'b\', false)', "postgres", /Unicode-escaped names are refused/);
  refused("SELECT pg_terminate_backend(pid) FROM pg_stat_activity", "postgres", /signals other server sessions/);
  refused("SELECT lo_import('/etc/passwd')", "postgres", /large objects/);
  refused("SELECT * FROM dblink('dbname=x', 'DELETE FROM t') AS t(x int)", "postgres", /dblink\(\) opens a second connection/);
  refused("SELECT nextval('s')", "postgres", /advances or sets a sequence/);
  refused("SELECT query_to_xml('DELETE FROM t', true, true, '')", "postgres", /runs SQL given as a string/);
  // Text-search and tablefunc functions that run their text argument as SQL, and index maintenance.
  refused("SELECT * FROM ts_stat('SELECT to_tsvector(pg_terminate_backend(pid)::text) FROM pg_stat_activity')", "postgres", /ts_stat\(\) runs SQL given as a string/);
  refused("SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery')", "postgres", /ts_rewrite\(\) runs SQL given as a string/);
  refused("SELECT * FROM public.crosstab('SELECT 1') AS t(a int)", "postgres", /crosstab\(\) runs SQL given as a string/);
  refused("SELECT brin_summarize_new_values('i')", "postgres", /changes index storage/);
  refused("SELECT gin_clean_pending_list('i')", "postgres", /changes index storage/);
  refused("SELECT load_extension('/tmp/x.so')", "sqlite", /loads native code/);
  refused("SELECT DBMS_XMLGEN.GETXML('DELETE FROM t') FROM dual", "oracle", /DBMS_XMLGEN\.GETXML\(\) belongs to an Oracle DBMS_\/UTL_ package/);
  refused("SELECT sys.utl_http.request('http://x') FROM dual", "oracle", /UTL_HTTP/);
  refused("SELECT CLOSE_ALL_SESSIONS()", "vertica", /ends or interrupts sessions/);
  refused("SELECT EXPORT_TABLES('/tmp/x', 't')", "vertica", /writes files on the server/);
  // The same names as plain columns are fine.
  allowed("SELECT nextval FROM t", "postgres");
});

test("Oracle: anonymous PL/SQL blocks and inline PL/SQL are refused", () => {
  refused("BEGIN DELETE FROM t; COMMIT; END;", "oracle", /anonymous PL\/SQL block/);
  refused("DECLARE n NUMBER; BEGIN n := 1; END;", "oracle", /anonymous PL\/SQL block/);
  refused("begin\n  execute immediate 'drop table t';\nend;\n/", "oracle", /anonymous PL\/SQL block/);
  refused(
    "WITH FUNCTION f RETURN NUMBER IS PRAGMA AUTONOMOUS_TRANSACTION; BEGIN DELETE FROM t; COMMIT; RETURN 1; END; SELECT f FROM dual",
    "oracle",
    /WITH FUNCTION declares inline PL\/SQL/,
  );
  refused("SELECT * FROM (WITH PROCEDURE p IS BEGIN NULL; END; SELECT 1 FROM dual)", "oracle", /WITH PROCEDURE/);
  refused("EXEC purge_all", "oracle", /EXEC runs procedural code/);
  refused("CALL purge_all()", "oracle", /CALL runs a stored procedure/);
  refused("EXPLAIN PLAN FOR SELECT * FROM t", "oracle", /PLAN_TABLE/);
  refused("MERGE INTO t USING s ON (t.id = s.id) WHEN MATCHED THEN UPDATE SET t.a = s.a", "oracle", /MERGE changes data/);
  refused("ALTER SESSION SET CURRENT_SCHEMA = other", "oracle", /ALTER changes/);
  refused("LOCK TABLE t IN EXCLUSIVE MODE", "oracle", /LOCK takes table locks/);
  refused("SELECT * FROM t FOR UPDATE NOWAIT", "oracle", /FOR UPDATE locks rows/);
  refused("SELECT 1 FROM dual; SELECT 2 FROM dual", "oracle", /one statement per call/);
  refused("SHOW parameters", "oracle", /must start with SELECT, WITH/);
});

test("Vertica: procedural code, DML, COPY, EXPORT and multiple statements are refused", () => {
  refused("DO $$ BEGIN PERFORM 1; END $$", "vertica", /DO runs procedural code/);
  refused("CALL p()", "vertica", /CALL runs a stored procedure/);
  refused("COPY t FROM '/tmp/x'", "vertica", /COPY/);
  refused("EXPORT TO PARQUET (directory = '/tmp/x') AS SELECT * FROM t", "vertica", /EXPORT writes data out/);
  refused("SELECT 1; COMMIT", "vertica", /one statement per call/);
  refused("TRUNCATE TABLE t", "vertica", /TRUNCATE changes data/);
  refused("SELECT PURGE_TABLE('t')", "vertica", /changes or moves data/);
  allowed("SHOW SESSION ALL", "vertica");
  allowed("EXPLAIN SELECT * FROM t", "vertica");
});

test("tokenize: PostgreSQL nests block comments, the others do not", () => {
  const words = (sql: string, d: Dialect) => tokenize(sql, d).filter((t) => t.kind === "word").map((t) => t.value);
  assert.deepEqual(words("/* a /* b */ c */ SELECT", "postgres"), ["SELECT"]);
  assert.deepEqual(words("/* a /* b */ C */ SELECT", "sqlite"), ["C", "SELECT"]);
  assert.equal(splitStatements(tokenize(";;SELECT 1;;SELECT 2;", "postgres")).length, 2);
});

test("splitQualifiedName reads quoted and unquoted parts", () => {
  assert.deepEqual(splitQualifiedName("sales.orders", "postgres"), { parts: ["sales", "orders"], quoted: [false, false] });
  assert.deepEqual(splitQualifiedName('"My Schema"."Order ""x"""', "postgres"), { parts: ["My Schema", 'Order "x"'], quoted: [true, true] });
  assert.equal(splitQualifiedName("a b", "postgres"), undefined);
  assert.equal(splitQualifiedName("a.", "postgres"), undefined);
  assert.equal(splitQualifiedName("x; DROP TABLE t", "sqlite"), undefined);
});
