// Generated PostgreSQL attacks: every function on rt's deny list, called in
// every spelling PostgreSQL accepts (quoted, qualified, upper-case,
// Unicode-escaped, split by comments, inside nested parentheses, behind casts),
// with every operator character before and after it (the hand lexer read
// `1::int4#pg_reload_conf()` as one name), and inside every place of a query
// that can hold an expression (subqueries, CTEs, LATERAL, ROWS FROM, ORDER BY,
// windows, FILTER, DEFAULT...). The cases are the cross product of the lists
// below; none is picked by hand. test/db/pg-attacks.test.ts runs them against
// the real server, with the server's own EXPLAIN VERBOSE as the oracle of what
// the text calls.
//
// Placeholders filled in at run time: ${OUT} a directory the server may write
// to (a file there means an escape worked), ${PORT} the server's port,
// ${VICTIM} the pid of another session of the SELECT-only role, ${LO} the oid
// of an existing large object.

/** The characters PostgreSQL builds operators from (CREATE OPERATOR's list). */
export const OPERATOR_CHARS = ["+", "-", "*", "/", "<", ">", "=", "~", "!", "@", "#", "%", "^", "&", "|", "`", "?"];

/** Arguments that make each call a real attack on the test server (unlisted functions: none). */
export const ATTACK_ARGS: Record<string, string> = {
  set_config: "'default_transaction_read_only', 'off', false",
  pg_terminate_backend: "${VICTIM}",
  pg_cancel_backend: "${VICTIM}",
  pg_log_backend_memory_contexts: "${VICTIM}",
  pg_create_restore_point: "'rt_canary'",
  pg_backup_start: "'rt_canary'",
  pg_start_backup: "'rt_canary'",
  pg_import_system_collations: "'public'::regnamespace",
  lo_import: "'/etc/hostname'",
  lo_export: "${LO}, '${OUT}/lo_export.txt'",
  lo_unlink: "${LO}",
  lo_create: "0",
  lo_creat: "-1",
  lo_put: "${LO}, 0, '\\x70776e6564'::bytea",
  lo_from_bytea: "0, 'pwned'::bytea",
  lo_truncate: "0, 0",
  lo_truncate64: "0, 0",
  lowrite: "0, 'pwned'::bytea",
  lo_open: "${LO}, 131072",
  dblink: "'host=127.0.0.1 port=${PORT} dbname=app user=rt_admin', 'DELETE FROM accounts RETURNING id'",
  dblink_exec: "'host=127.0.0.1 port=${PORT} dbname=app user=rt_admin', 'DELETE FROM accounts'",
  dblink_connect: "'rt', 'host=127.0.0.1 port=${PORT} dbname=app user=rt_admin'",
  dblink_connect_u: "'rt', 'host=127.0.0.1 port=${PORT} dbname=app user=rt_admin'",
  dblink_send_query: "'rt', 'DELETE FROM accounts'",
  dblink_open: "'rt', 'c', 'SELECT 1'",
  dblink_fetch: "'c', 1",
  pg_read_file: "'/etc/passwd'",
  pg_read_binary_file: "'/etc/passwd'",
  pg_ls_dir: "'.'",
  pg_stat_file: "'postgresql.conf'",
  pg_file_write: "'${OUT}/file_write.txt', 'pwned', false",
  pg_file_rename: "'${OUT}/a', '${OUT}/b'",
  pg_file_unlink: "'${OUT}/a'",
  pg_file_sync: "'${OUT}'",
  nextval: "'accounts_id_seq'",
  setval: "'accounts_id_seq', 100000",
  pg_advisory_lock: "42",
  pg_advisory_lock_shared: "42",
  pg_try_advisory_lock: "42",
  pg_try_advisory_lock_shared: "42",
  pg_advisory_xact_lock: "42",
  pg_advisory_xact_lock_shared: "42",
  pg_try_advisory_xact_lock: "42",
  pg_try_advisory_xact_lock_shared: "42",
  pg_notify: "'rt_canary', 'pwned'",
  query_to_xml: "'DELETE FROM accounts RETURNING 1', true, true, ''",
  query_to_xmlschema: "'DELETE FROM accounts RETURNING 1', true, true, ''",
  query_to_xml_and_xmlschema: "'DELETE FROM accounts RETURNING 1', true, true, ''",
  cursor_to_xml: "'c'::refcursor, 1, true, true, ''",
  cursor_to_xmlschema: "'c'::refcursor, true, true, ''",
  ts_stat: "'SELECT to_tsvector(pg_reload_conf()::text)'",
  ts_rewrite:
    "'a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery FROM pg_stat_activity WHERE pg_terminate_backend(pid)'",
  crosstab: "'SELECT 1, 1, pg_reload_conf()::text'",
  crosstab2: "'SELECT 1, 1, pg_reload_conf()::text'",
  crosstab3: "'SELECT 1, 1, pg_reload_conf()::text'",
  crosstab4: "'SELECT 1, 1, pg_reload_conf()::text'",
  connectby: "'accounts', 'id', 'id', '1', 0",
  brin_summarize_new_values: "'accounts_pkey'",
  brin_summarize_range: "'accounts_pkey', 0",
  brin_desummarize_range: "'accounts_pkey', 0",
  gin_clean_pending_list: "'accounts_pkey'",
  pg_create_physical_replication_slot: "'rt_canary'",
  pg_create_logical_replication_slot: "'rt_canary', 'test_decoding'",
  pg_drop_replication_slot: "'rt_canary'",
  pg_replication_slot_advance: "'rt_canary', '0/0'",
  pg_copy_physical_replication_slot: "'rt_canary', 'rt_copy'",
  pg_copy_logical_replication_slot: "'rt_canary', 'rt_copy'",
  pg_logical_slot_get_changes: "'rt_canary', NULL, NULL",
  pg_logical_slot_get_binary_changes: "'rt_canary', NULL, NULL",
  pg_logical_emit_message: "false, 'rt', 'pwned'",
  pg_replication_origin_create: "'rt_canary'",
  pg_replication_origin_drop: "'rt_canary'",
  pg_replication_origin_advance: "'rt_canary', '0/0'",
  pg_stat_reset_shared: "'bgwriter'",
  pg_stat_reset_single_table_counters: "'accounts'::regclass",
  pg_stat_reset_single_function_counters: "0",
  pg_stat_reset_slru: "NULL",
  pg_stat_reset_replication_slot: "NULL",
  pg_stat_reset_subscription_stats: "NULL",
};

export interface PgAttack {
  id: string;
  /** The denied function the text calls. */
  fn: string;
  sql: string;
  /** What the server is asked instead, to learn (without running anything) whether and how it reads the text. */
  oracle: string;
}

/** How a call of `name(args)` may be spelled; `schema` is where the server keeps the function. */
const SPELLINGS: Record<string, (name: string, args: string, schema: string) => string> = {
  plain: (n, a) => `${n}(${a})`,
  upper: (n, a) => `${n.toUpperCase()}(${a})`,
  quoted: (n, a) => `"${n}"(${a})`,
  qualified: (n, a, s) => `${s}.${n}(${a})`,
  "qualified-quoted": (n, a, s) => `"${s}"."${n}"(${a})`,
  "qualified-spaced": (n, a, s) => `${s} . ${n} (${a})`,
  "unicode-escaped": (n, a) =>
    `U&"${[...n].map((c) => `\\${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"(${a})`,
  "unicode-uescape": (n, a) =>
    `U&"${[...n].map((c, i) => (i % 2 ? c : `!${c.charCodeAt(0).toString(16).padStart(4, "0")}`)).join("")}" UESCAPE '!'(${a})`,
  "comment-before-paren": (n, a) => `${n}/**/(${a})`,
  "nested-comment": (n, a) => `${n} /* a /* nested */ comment */ (${a})`,
  "line-comment": (n, a) => `${n} -- ;\n(${a})`,
  newlines: (n, a) => `\n${n}\n(\n${a}\n)\n`,
  "nested-parens": (n, a) => `((((${n}(${a})))))`,
  "dollar-quoted-args": (n, a) =>
    `${n}(${a.replace(/'((?:[^']|'')*)'/g, (_m, s: string) => `$rt$${s.replace(/''/g, "'")}$rt$`)})`,
  "cast-result": (n, a) => `${n}(${a})::text`,
  "cast-syntax": (n, a) => `CAST(${n}(${a}) AS text)`,
  "operator-syntax": (n, a) => `1 OPERATOR(pg_catalog.+) ${n}(${a})::text::int`,
};

/** Where in a statement a call may stand; `@CALL` is the call. */
const CONTEXTS: Record<string, string> = {
  "select-list": "SELECT @CALL",
  "from-function": "SELECT * FROM @CALL AS f",
  "rows-from": "SELECT * FROM ROWS FROM (generate_series(1, 1), @CALL) AS f",
  lateral: "SELECT a.id FROM accounts a, LATERAL (SELECT @CALL AS v) AS l",
  "lateral-function": "SELECT a.id FROM accounts a CROSS JOIN LATERAL @CALL AS f",
  cte: "WITH c AS (SELECT @CALL AS v) SELECT * FROM c",
  "cte-table": "WITH c AS MATERIALIZED (SELECT @CALL AS v) TABLE c",
  "recursive-cte":
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2 AND @CALL IS NOT NULL) SELECT * FROM r",
  "scalar-subquery": "SELECT (SELECT @CALL)",
  "in-subquery": "SELECT id FROM accounts WHERE id::text IN (SELECT @CALL::text)",
  where: "SELECT id FROM accounts WHERE @CALL IS NOT NULL",
  "join-on": "SELECT a.id FROM accounts a JOIN audit b ON @CALL IS NOT NULL",
  "order-by": "SELECT id FROM accounts ORDER BY @CALL",
  having: "SELECT id FROM accounts GROUP BY id HAVING count(@CALL) > 0",
  window: "SELECT sum(id) OVER (PARTITION BY @CALL) FROM accounts",
  "aggregate-filter": "SELECT count(*) FILTER (WHERE @CALL IS NOT NULL) FROM accounts",
  "aggregate-order": "SELECT string_agg(owner, ',' ORDER BY @CALL) FROM accounts",
  case: "SELECT CASE WHEN id > 0 THEN @CALL END FROM accounts",
  coalesce: "SELECT coalesce(NULL, @CALL)",
  array: "SELECT ARRAY[@CALL]",
  values: "VALUES (@CALL)",
  union: "SELECT NULL UNION ALL SELECT @CALL",
  limit: "SELECT id FROM accounts LIMIT @CALL::text::int",
  "explain-select": "EXPLAIN SELECT @CALL",
  "explain-analyze": "EXPLAIN ANALYZE SELECT @CALL",
  "explain-insert-default": "EXPLAIN INSERT INTO audit (note) VALUES (DEFAULT), (@CALL::text)",
  "explain-update-set": "EXPLAIN UPDATE audit SET note = @CALL::text",
  "string-semicolons": "SELECT $q$ '; $q$ AS s, E'\\'; ' AS t, @CALL",
  "comment-semicolon": "SELECT /* ; */ 1 AS a, -- ;\n @CALL",
  // Statements rt refuses whatever they call: the refusal still names the function.
  "create-default": "CREATE TEMP TABLE t (x text DEFAULT @CALL::text)",
  "insert-default": "INSERT INTO audit (note) VALUES (DEFAULT), (@CALL::text)",
};
/** What the server EXPLAINs for a context that EXPLAIN cannot take (the call, read in the same place). */
const CONTEXT_ORACLES: Record<string, string> = {
  "create-default": "SELECT @CALL::text",
};

/** The operator placements around a call `@CALL`, with the operator `o` (and `p`, the next character, for two-character operators). */
const AROUND: Record<string, string> = {
  "ident-op-call": "SELECT x{o}@CALL FROM (VALUES (1)) AS v(x)",
  "cast-op-call-cast": "SELECT 1::int4{o}@CALL::int",
  "call-op-const": "SELECT @CALL::text::int{o}1",
  "prefix-op": "SELECT {o}@CALL",
  "two-char-op": "SELECT x{o}{p}@CALL FROM (VALUES (1)) AS v(x)",
};

/** The server EXPLAINs what it can; an EXPLAIN in the case is replaced by the oracle's own. */
function oracleFor(sql: string): string {
  return `EXPLAIN (VERBOSE, COSTS off) ${sql.replace(/^EXPLAIN( ANALYZE)? /, "")}`;
}

/** Every case: denied names × (spellings + contexts + operator characters × placements). */
export function generatePgAttacks(denied: string[], schemaOf: (name: string) => string): PgAttack[] {
  const out: PgAttack[] = [];
  for (const fn of denied) {
    const args = ATTACK_ARGS[fn] ?? "";
    const schema = schemaOf(fn);
    const plain = `${fn}(${args})`;
    const add = (id: string, sql: string, oracle = sql) =>
      out.push({ id: `${fn}/${id}`, fn, sql, oracle: oracleFor(oracle) });
    for (const [id, spell] of Object.entries(SPELLINGS)) add(`spelling:${id}`, `SELECT ${spell(fn, args, schema)}`);
    for (const [id, ctx] of Object.entries(CONTEXTS))
      add(
        `context:${id}`,
        ctx.replace("@CALL", () => plain),
        (CONTEXT_ORACLES[id] ?? ctx).replace("@CALL", () => plain),
      );
    OPERATOR_CHARS.forEach((o, i) => {
      const p = OPERATOR_CHARS[(i + 1) % OPERATOR_CHARS.length];
      for (const [id, tpl] of Object.entries(AROUND))
        add(
          `op:${o}${id === "two-char-op" ? p : ""}:${id}`,
          tpl
            .replace(/\{o\}/g, () => o)
            .replace(/\{p\}/g, () => p)
            .replace("@CALL", () => plain),
        );
    });
  }
  return out;
}

export function fill(sql: string, vars: Record<string, string>): string {
  return sql.replace(/\$\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}
