// SQL that tries to change data, the schema, the session or the server, or to
// escape the read-only transaction. Kept as data: every entry runs against a
// real SQLite file and a real PostgreSQL server (test/db/sqlite.test.ts,
// test/db/postgres.test.ts), and the data checksums must not move.
//
// ${OUT} is replaced by a directory that is writable by everyone (the server
// too): a file appearing there means an escape worked. ${PORT} is the test
// server's port.

export type CorpusEngine = "sqlite" | "postgres";

export interface Attempt {
  id: string;
  /** The same text for both engines, or one per engine (an engine without one runs the `default`). */
  sql: string | { default: string; sqlite?: string; postgres?: string };
  /** What the attempt is after. */
  why: string;
  /**
   * Engines on which the text is, as the engine reads it, a harmless query: rt may run it.
   * (A nested comment hides the second statement from PostgreSQL, not from SQLite.)
   */
  harmlessOn?: CorpusEngine[];
}

export function sqlFor(a: Attempt, engine: CorpusEngine, vars: Record<string, string>): string {
  const text = typeof a.sql === "string" ? a.sql : (a.sql[engine] ?? a.sql.default);
  return text.replace(/\$\{(\w+)\}/g, (_, k: string) => vars[k] ?? `\${${k}}`);
}

export const ATTEMPTS: Attempt[] = [
  // Plain writes
  { id: "delete", sql: "DELETE FROM accounts", why: "delete every row" },
  { id: "delete-lowercase-mixed", sql: "dElEtE fRoM accounts WHERE 1 = 1", why: "keyword case tricks" },
  { id: "update", sql: "UPDATE accounts SET balance = 0", why: "change every row" },
  { id: "insert", sql: "INSERT INTO accounts (owner, balance) VALUES ('mallory', 1000000)", why: "add a row" },
  {
    id: "upsert",
    sql: "INSERT INTO accounts (id, owner, balance) VALUES (1, 'mallory', 0) ON CONFLICT (id) DO UPDATE SET balance = 0",
    why: "upsert",
  },
  {
    id: "replace-into",
    sql: "REPLACE INTO accounts (id, owner, balance) VALUES (1, 'mallory', 0)",
    why: "SQLite REPLACE",
  },
  {
    id: "merge",
    sql: { default: "MERGE INTO accounts a USING (SELECT 1 AS id) s ON a.id = s.id WHEN MATCHED THEN DELETE" },
    why: "MERGE",
  },
  { id: "truncate", sql: "TRUNCATE accounts", why: "empty a table" },
  { id: "drop-table", sql: "DROP TABLE accounts", why: "drop a table" },
  { id: "alter-table", sql: "ALTER TABLE accounts ADD COLUMN pwned integer", why: "change the schema" },
  { id: "create-table", sql: "CREATE TABLE pwned (x integer)", why: "create a table" },
  {
    id: "create-temp-table",
    sql: "CREATE TEMP TABLE pwned AS SELECT * FROM accounts",
    why: "temporary tables are writes too",
  },
  { id: "create-index", sql: "CREATE INDEX pwned_idx ON accounts (owner)", why: "create an index" },
  {
    id: "create-function",
    sql: {
      default: "CREATE FUNCTION pwned() RETURNS integer LANGUAGE sql AS 'SELECT 1'",
      sqlite: "CREATE TRIGGER pwned AFTER INSERT ON accounts BEGIN DELETE FROM accounts; END",
    },
    why: "plant code",
  },
  { id: "select-into", sql: "SELECT * INTO pwned FROM accounts", why: "SELECT INTO creates a table" },
  { id: "grant", sql: "GRANT ALL ON accounts TO PUBLIC", why: "escalate privileges" },
  { id: "create-role", sql: "CREATE ROLE pwned SUPERUSER LOGIN", why: "escalate privileges" },
  { id: "comment-on", sql: "COMMENT ON TABLE accounts IS 'pwned'", why: "change the catalog" },

  // DML hidden in a CTE or a subquery
  {
    id: "cte-delete-returning",
    sql: "WITH gone AS (DELETE FROM accounts RETURNING *) SELECT count(*) FROM gone",
    why: "data-modifying CTE",
  },
  {
    id: "cte-update-returning",
    sql: "WITH x AS (UPDATE accounts SET balance = 0 RETURNING id) SELECT * FROM x",
    why: "data-modifying CTE",
  },
  { id: "cte-then-delete", sql: "WITH x AS (SELECT 1) DELETE FROM accounts", why: "WITH wrapping a DELETE" },
  {
    id: "cte-materialized-insert",
    sql: "WITH t AS MATERIALIZED (SELECT 1) INSERT INTO accounts (owner) SELECT 'x' FROM t",
    why: "WITH wrapping an INSERT",
  },
  {
    id: "explain-analyze-delete",
    sql: { default: "EXPLAIN ANALYZE DELETE FROM accounts", sqlite: "EXPLAIN DELETE FROM accounts" },
    why: "EXPLAIN ANALYZE runs the statement",
  },
  {
    id: "explain-options-update",
    sql: "EXPLAIN (ANALYZE, BUFFERS) UPDATE accounts SET balance = 0",
    why: "EXPLAIN ANALYZE with options",
  },

  // Several statements in one string
  { id: "select-then-delete", sql: "SELECT 1; DELETE FROM accounts", why: "second statement" },
  {
    id: "select-then-drop-comment",
    sql: "SELECT 1; -- harmless\nDROP TABLE accounts",
    why: "second statement after a comment",
  },
  {
    id: "string-semicolon",
    sql: "SELECT 'a;b'; DELETE FROM accounts; SELECT 'c'",
    why: "semicolons inside and outside strings",
  },
  {
    id: "standard-string-backslash",
    sql: "SELECT '\\'; DELETE FROM accounts; --'",
    why: "a backslash does not escape a quote in a standard string",
  },
  { id: "dollar-quote-semicolon", sql: "SELECT $$;$$; DELETE FROM accounts", why: "dollar quoting around a semicolon" },
  {
    id: "nested-comment",
    sql: "SELECT 1 /* /* */ ; DELETE FROM accounts; -- */",
    why: "PostgreSQL nests comments, SQLite does not",
    harmlessOn: ["postgres"],
  },
  { id: "empty-statements", sql: ";;; DELETE FROM accounts ;;;", why: "empty statements around a write" },
  { id: "values-then-delete", sql: "VALUES (1); DELETE FROM accounts", why: "second statement" },
  { id: "table-then-truncate", sql: "TABLE accounts; TRUNCATE accounts", why: "second statement" },
  { id: "select-then-vacuum", sql: "SELECT * FROM accounts; VACUUM", why: "second statement" },

  // Comment-obfuscated keywords
  { id: "comment-split-keyword", sql: "DEL/**/ETE FROM accounts", why: "a comment inside a keyword" },
  { id: "comment-before-delete", sql: "/* SELECT */ DELETE FROM accounts", why: "a comment that looks like a query" },
  {
    id: "line-comment-before-delete",
    sql: "-- SELECT * FROM accounts\nDELETE FROM accounts",
    why: "a line comment that looks like a query",
  },
  {
    id: "comment-between-words",
    sql: "SELECT 1 FROM accounts; /**/DELETE/**/FROM/**/accounts",
    why: "comments as whitespace",
  },

  // Escaping the read-only transaction
  { id: "commit-then-delete", sql: "COMMIT; DELETE FROM accounts", why: "end rt's transaction, then write" },
  { id: "commit-alone", sql: "COMMIT", why: "end rt's transaction" },
  { id: "rollback-then-delete", sql: "ROLLBACK; DELETE FROM accounts;", why: "end rt's transaction, then write" },
  { id: "end-then-update", sql: "END; UPDATE accounts SET balance = 0", why: "end rt's transaction, then write" },
  {
    id: "begin-read-write",
    sql: "BEGIN READ WRITE; DELETE FROM accounts; COMMIT",
    why: "a read-write transaction of its own",
  },
  { id: "savepoint", sql: "SAVEPOINT s; DELETE FROM accounts; RELEASE s", why: "savepoints" },
  { id: "set-transaction-read-write", sql: "SET TRANSACTION READ WRITE", why: "make the transaction writable" },
  {
    id: "set-session-characteristics",
    sql: "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
    why: "make later transactions writable",
  },
  {
    id: "set-default-read-only-off",
    sql: "SET default_transaction_read_only = off",
    why: "make later transactions writable",
  },
  {
    id: "set-config-transaction",
    sql: "SELECT set_config('transaction_read_only', 'off', true)",
    why: "SET through a function",
  },
  {
    id: "set-config-default",
    sql: "SELECT set_config('default_transaction_read_only', 'off', false)",
    why: "SET through a function",
  },
  {
    id: "set-config-quoted",
    sql: "SELECT \"set_config\"('transaction_read_only', 'off', true)",
    why: "a quoted function name",
  },
  {
    id: "set-config-qualified",
    sql: "SELECT pg_catalog.set_config('transaction_read_only', 'off', true)",
    why: "a schema-qualified function name",
  },
  {
    id: "set-config-unicode-escape",
    sql: "SELECT U&\"\\0073et_config\"('transaction_read_only', 'off', true)",
    why: "a Unicode-escaped function name",
  },
  { id: "set-role", sql: "SET ROLE rt_admin", why: "become another role" },
  { id: "set-session-authorization", sql: "SET SESSION AUTHORIZATION rt_admin", why: "become another role" },
  { id: "reset-all", sql: "RESET ALL", why: "drop rt's session settings" },
  {
    id: "alter-system",
    sql: "ALTER SYSTEM SET default_transaction_read_only = off",
    why: "change the server's configuration",
  },
  { id: "prepare-transaction", sql: "PREPARE TRANSACTION 'pwned'", why: "a transaction that outlives the session" },
  { id: "prepare-statement", sql: "PREPARE p AS DELETE FROM accounts", why: "a statement for later" },
  { id: "do-block", sql: "DO $$ BEGIN DELETE FROM accounts; END $$", why: "procedural code" },
  {
    id: "do-block-set-config",
    sql: "DO $$BEGIN PERFORM set_config('default_transaction_read_only', 'off', false); END$$",
    why: "procedural code changing settings",
  },
  { id: "call-procedure", sql: "CALL purge_accounts()", why: "a stored procedure that deletes" },
  { id: "security-definer-function", sql: "SELECT wipe()", why: "a SECURITY DEFINER function that deletes" },
  {
    id: "query-to-xml",
    sql: "SELECT query_to_xml('DELETE FROM accounts RETURNING 1', true, true, '')",
    why: "SQL run from a string",
  },

  // Row locks and table locks
  { id: "select-for-update", sql: "SELECT * FROM accounts FOR UPDATE", why: "row locks" },
  { id: "select-for-no-key-update", sql: "SELECT * FROM accounts WHERE id = 1 FOR NO KEY UPDATE", why: "row locks" },
  { id: "select-for-share", sql: "SELECT * FROM accounts FOR SHARE", why: "row locks" },
  { id: "lock-table", sql: "LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE", why: "table locks" },
  { id: "advisory-lock", sql: "SELECT pg_advisory_lock(42)", why: "locks that outlive the query" },

  // Functions with effects outside the transaction
  {
    id: "terminate-backends",
    sql: "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()",
    why: "kill other sessions",
  },
  {
    id: "cancel-backends",
    sql: "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()",
    why: "cancel other sessions' queries",
  },
  { id: "reload-conf", sql: "SELECT pg_reload_conf()", why: "administer the server" },
  { id: "nextval", sql: "SELECT nextval('accounts_id_seq')", why: "advance a sequence" },
  { id: "setval", sql: "SELECT setval('accounts_id_seq', 100000)", why: "set a sequence" },
  { id: "notify", sql: "NOTIFY pwned, 'x'", why: "send a notification" },
  { id: "pg-notify", sql: "SELECT pg_notify('pwned', 'x')", why: "send a notification" },
  { id: "lo-import", sql: "SELECT lo_import('/etc/hostname')", why: "read a server file into a large object" },
  {
    id: "lo-export",
    sql: "SELECT lo_export(lo_from_bytea(0, 'pwned'::bytea), '${OUT}/lo_export.txt')",
    why: "write a server file",
  },
  { id: "pg-read-file", sql: "SELECT pg_read_file('/etc/passwd')", why: "read a server file" },
  {
    id: "pg-file-write",
    sql: "SELECT pg_file_write('${OUT}/adminpack.txt', 'pwned', false)",
    why: "write a server file (adminpack)",
  },
  {
    id: "dblink-exec",
    sql: "SELECT dblink_exec('host=127.0.0.1 port=${PORT} dbname=app user=rt_admin', 'DELETE FROM accounts')",
    why: "a second, writable connection",
  },
  {
    id: "dblink-query",
    sql: "SELECT * FROM dblink('host=127.0.0.1 port=${PORT} dbname=app user=rt_admin', 'DELETE FROM accounts RETURNING id') AS t(id integer)",
    why: "a second, writable connection",
  },
  {
    id: "copy-to-program",
    sql: "COPY (SELECT 1) TO PROGRAM 'touch ${OUT}/copy_program'",
    why: "run a program on the server",
  },
  { id: "copy-to-file", sql: "COPY accounts TO '${OUT}/copy.csv'", why: "write a server file" },
  { id: "copy-from-file", sql: "COPY accounts FROM '/etc/passwd'", why: "load data" },

  // SQLite's own
  { id: "pragma-query-only-off", sql: "PRAGMA query_only = 0", why: "turn SQLite's query_only off" },
  { id: "pragma-query-only-false", sql: "pragma QUERY_ONLY=false", why: "turn SQLite's query_only off" },
  { id: "pragma-writable-schema", sql: "PRAGMA writable_schema = ON", why: "edit sqlite_schema directly" },
  { id: "pragma-journal-mode", sql: "PRAGMA journal_mode = WAL", why: "rewrite the file header" },
  { id: "pragma-user-version", sql: "PRAGMA user_version = 42", why: "write the header" },
  { id: "vacuum", sql: "VACUUM", why: "rewrite the file" },
  { id: "vacuum-into", sql: "VACUUM INTO '${OUT}/copy.db'", why: "write a new database file" },
  { id: "attach", sql: "ATTACH DATABASE '${OUT}/evil.db' AS evil", why: "create and attach a file" },
  {
    id: "attach-then-create",
    sql: "ATTACH '${OUT}/evil2.db' AS e; CREATE TABLE e.t (x)",
    why: "write through an attached file",
  },
  { id: "detach", sql: "DETACH DATABASE main", why: "change the connection" },
  { id: "load-extension", sql: "SELECT load_extension('${OUT}/evil.so')", why: "load native code" },
  { id: "writefile", sql: "SELECT writefile('${OUT}/writefile.txt', 'pwned')", why: "the sqlite3 shell's file writer" },
  { id: "analyze", sql: "ANALYZE", why: "write statistics" },
  { id: "reindex", sql: "REINDEX", why: "rewrite indexes" },
  { id: "begin-immediate", sql: "BEGIN IMMEDIATE", why: "take the write lock" },
];
