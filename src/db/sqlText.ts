// Reading SQL text without running it, and a check that refuses, with a
// reason, every statement that is not a plain query. PostgreSQL statements are
// read by PostgreSQL's own parser (libpg_query, src/db/pgCheck.ts); SQLite,
// Oracle and Vertica by a small lexer here that knows each engine's comments,
// strings, quoted identifiers, parameters and dollar quotes.
//
// This check is for clear feedback and a first line of defence. The guarantee
// comes from the engines: SQLite opened read-only with query_only and
// sqlite3_stmt_readonly, PostgreSQL's READ ONLY transactions and the extended
// query protocol, Oracle's and Vertica's read-only transactions, and a
// SELECT-only role (see the README).

export type Dialect = "sqlite" | "postgres" | "oracle" | "vertica";
/** The dialects the hand lexer checks; PostgreSQL is checked on its parser's tree (checkSql). */
export type LexedDialect = Exclude<Dialect, "postgres">;

export type TokenKind = "word" | "quoted" | "string" | "number" | "param" | "semicolon" | "punct";

export interface Token {
  kind: TokenKind;
  /** Words: upper-cased; quoted identifiers: the name inside the quotes; everything else: the text itself. */
  value: string;
  start: number;
  end: number;
}

export class SqlTextError extends Error {}

const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v";
const isWordStart = (c: string) => /[A-Za-z_]/.test(c) || c.charCodeAt(0) > 127;
/**
 * Characters that continue an unquoted identifier. Only Oracle takes `#` (and `$`) inside names;
 * PostgreSQL and Vertica read `#` as an operator (bitwise XOR) and SQLite as the start of a
 * parameter, so `1#f()` is a call of f() there, and reading `1#f` as one name would hide it.
 */
const isWordChar = (c: string, dialect: Dialect) =>
  (dialect === "oracle" ? /[A-Za-z0-9_$#]/ : /[A-Za-z0-9_$]/).test(c) || c.charCodeAt(0) > 127;
const isDigit = (c: string) => c >= "0" && c <= "9";

const CLOSING: Record<string, string> = { "[": "]", "{": "}", "<": ">", "(": ")" };

/** Splits SQL text into tokens, dropping comments. Throws SqlTextError on unterminated strings, identifiers or comments. */
export function tokenize(sql: string, dialect: Dialect): Token[] {
  const tokens: Token[] = [];
  const n = sql.length;
  let i = 0;
  const push = (kind: TokenKind, start: number, end: number, value = sql.slice(start, end)) =>
    tokens.push({ kind, value, start, end });

  /** A '...' string starting at `q` (the quote); `backslash`: \ escapes the next character (E'...'). Returns the index after it. */
  const readString = (q: number, backslash: boolean): number => {
    let j = q + 1;
    for (;;) {
      if (j >= n) throw new SqlTextError(`unterminated string starting at character ${q + 1}`);
      const c = sql[j];
      if (backslash && c === "\\") {
        j += 2;
        continue;
      }
      if (c === "'") {
        if (sql[j + 1] === "'") {
          j += 2;
          continue;
        }
        return j + 1;
      }
      j++;
    }
  };
  /** An identifier quoted with `open` … `close` (doubled `close` escapes it). */
  const readQuoted = (q: number, close: string): number => {
    let j = q + 1;
    for (;;) {
      if (j >= n) throw new SqlTextError(`unterminated quoted identifier starting at character ${q + 1}`);
      if (sql[j] === close) {
        if (close !== "]" && sql[j + 1] === close) {
          j += 2;
          continue;
        }
        return j + 1;
      }
      j++;
    }
  };

  while (i < n) {
    const c = sql[i];
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === "-" && sql[i + 1] === "-") {
      while (i < n && sql[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && sql[i + 1] === "*") {
      // PostgreSQL nests block comments; SQLite, Oracle and Vertica end them at the first */.
      const nested = dialect === "postgres";
      const start = i;
      let depth = 1;
      i += 2;
      while (depth > 0) {
        if (i >= n) throw new SqlTextError(`unterminated /* comment starting at character ${start + 1}`);
        if (sql[i] === "*" && sql[i + 1] === "/") {
          depth--;
          i += 2;
        } else if (nested && sql[i] === "/" && sql[i + 1] === "*") {
          depth++;
          i += 2;
        } else i++;
      }
      continue;
    }
    if (c === "'") {
      const end = readString(i, false);
      push("string", i, end);
      i = end;
      continue;
    }
    if (c === '"' || (dialect === "sqlite" && (c === "`" || c === "["))) {
      const close = c === "[" ? "]" : c;
      const end = readQuoted(i, close);
      const inner = sql
        .slice(i + 1, end - 1)
        .split(close + close)
        .join(close);
      push("quoted", i, end, inner);
      i = end;
      continue;
    }
    if (c === "$" && (dialect === "postgres" || dialect === "vertica")) {
      if (isDigit(sql[i + 1] ?? "")) {
        let j = i + 1;
        while (j < n && isDigit(sql[j])) j++;
        push("param", i, j);
        i = j;
        continue;
      }
      const m = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i, i + 200));
      if (m) {
        const tag = m[0];
        const close = sql.indexOf(tag, i + tag.length);
        if (close < 0)
          throw new SqlTextError(`unterminated dollar-quoted string ${tag} starting at character ${i + 1}`);
        push("string", i, close + tag.length);
        i = close + tag.length;
        continue;
      }
    }
    if (isWordStart(c)) {
      let j = i + 1;
      while (j < n && isWordChar(sql[j], dialect)) j++;
      const word = sql.slice(i, j).toUpperCase();
      // String prefixes written against the quote: E'..' (backslash escapes), N'..', X'..', B'..', U&'..', Oracle q'[..]'.
      if (sql[j] === "'") {
        if (dialect === "oracle" && (word === "Q" || word === "NQ") && j + 1 < n) {
          const open = sql[j + 1];
          const closeCh = CLOSING[open] ?? open;
          const close = sql.indexOf(closeCh + "'", j + 2);
          if (close < 0) throw new SqlTextError(`unterminated q'' string starting at character ${i + 1}`);
          push("string", i, close + 2);
          i = close + 2;
          continue;
        }
        if (word === "E" && (dialect === "postgres" || dialect === "vertica")) {
          const end = readString(j, true);
          push("string", i, end);
          i = end;
          continue;
        }
        if (word === "N" || word === "X" || word === "B" || word === "U") {
          const end = readString(j, false);
          push("string", i, end);
          i = end;
          continue;
        }
      }
      push("word", i, j, word);
      i = j;
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(sql[i + 1] ?? ""))) {
      const m = /^(0[xX][0-9A-Fa-f]+|\d*\.?\d+(?:[eE][+-]?\d+)?|\d+\.)/.exec(sql.slice(i, i + 400));
      const len = m ? m[0].length : 1;
      push("number", i, i + len);
      i += len;
      continue;
    }
    if (c === "?" && dialect !== "postgres") {
      let j = i + 1;
      while (j < n && isDigit(sql[j])) j++;
      push("param", i, j);
      i = j;
      continue;
    }
    // Named parameters: SQLite reads :name, @name, $name and #name; Oracle :name (its @ names a database link).
    // PostgreSQL and Vertica have operators spelled with @, # and :, which must stay operators here.
    if (
      ((dialect === "sqlite" && (c === ":" || c === "@" || c === "$" || c === "#")) ||
        (dialect === "oracle" && c === ":")) &&
      isWordStart(sql[i + 1] ?? "")
    ) {
      let j = i + 1;
      while (j < n && isWordChar(sql[j], dialect)) j++;
      push("param", i, j);
      i = j;
      continue;
    }
    if (c === ";") {
      push("semicolon", i, i + 1);
      i++;
      continue;
    }
    push("punct", i, i + 1);
    i++;
  }
  return tokens;
}

/** Tokens grouped into statements at top-level semicolons; empty statements dropped. */
export function splitStatements(tokens: Token[]): Token[][] {
  const out: Token[][] = [];
  let cur: Token[] = [];
  for (const t of tokens) {
    if (t.kind === "semicolon") {
      if (cur.length) out.push(cur);
      cur = [];
    } else cur.push(t);
  }
  if (cur.length) out.push(cur);
  return out;
}

export type SqlCheck =
  | {
      ok: true /** The statement's text, without surrounding comments and semicolons. */;
      statement: string;
      keyword: string;
    }
  | { ok: false; reason: string };

const QUERY_STARTS: Record<Dialect, string[]> = {
  sqlite: ["SELECT", "WITH", "VALUES", "EXPLAIN"],
  postgres: ["SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "SHOW"],
  oracle: ["SELECT", "WITH"],
  vertica: ["SELECT", "WITH", "EXPLAIN", "SHOW"],
};

const TXN = "is transaction control: rt runs each statement in a read-only transaction of its own and ends it itself";
const DATA = "changes data";
const SCHEMA = "changes the schema, privileges or storage";
const STATEMENT_REASONS: Record<string, string> = {
  INSERT: DATA,
  UPDATE: DATA,
  DELETE: DATA,
  MERGE: DATA,
  UPSERT: DATA,
  REPLACE: DATA,
  TRUNCATE: DATA,
  COPY: "reads or writes files or programs on the server, or loads data",
  CREATE: SCHEMA,
  DROP: SCHEMA,
  ALTER: SCHEMA,
  RENAME: SCHEMA,
  COMMENT: SCHEMA,
  GRANT: SCHEMA,
  REVOKE: SCHEMA,
  REINDEX: SCHEMA,
  CLUSTER: SCHEMA,
  REFRESH: SCHEMA,
  SECURITY: SCHEMA,
  IMPORT: SCHEMA,
  PURGE: SCHEMA,
  FLASHBACK: SCHEMA,
  AUDIT: SCHEMA,
  NOAUDIT: SCHEMA,
  EXPORT: "writes data out of the database",
  BEGIN: TXN,
  START: TXN,
  COMMIT: TXN,
  END: TXN,
  ROLLBACK: TXN,
  ABORT: TXN,
  SAVEPOINT: TXN,
  RELEASE: TXN,
  PREPARE: "prepares a statement or transaction for later: rt runs exactly one statement, now",
  SET: "changes session or transaction settings (such as SET TRANSACTION READ WRITE or SET ROLE), which rt fixes itself",
  RESET: "changes session settings, which rt fixes itself",
  PRAGMA:
    "can change the connection (query_only, writable_schema, journal_mode...); use sql_describe, or a read-only table-valued pragma such as SELECT * FROM pragma_table_info('t')",
  ATTACH: "attaches another database file to the connection",
  DETACH: "detaches a database from the connection",
  VACUUM: "rewrites the database file (VACUUM INTO writes a new file)",
  ANALYZE: "writes statistics into the database",
  DO: "runs procedural code",
  CALL: "runs a stored procedure",
  EXEC: "runs procedural code",
  EXECUTE: "runs a prepared statement or procedural code",
  DECLARE: "starts an anonymous PL/SQL block or a cursor",
  LOCK: "takes table locks",
  LISTEN: "subscribes to notifications",
  NOTIFY: "sends a notification",
  UNLISTEN: "changes notification subscriptions",
  LOAD: "loads a library into the server",
  DISCARD: "changes session state",
  DEALLOCATE: "changes session state",
  FETCH: "uses a cursor",
  MOVE: "uses a cursor",
  CLOSE: "uses a cursor",
  CHECKPOINT: "administers the server",
  CONNECT: "changes the connection",
  PROFILE: "runs a statement with profiling",
};

/** Functions with effects outside a read-only query, or that run SQL given as a string. */
export const FUNCTION_REASONS: Record<Dialect, Record<string, string>> = {
  postgres: {
    ...names("changes server or session settings", ["set_config"]),
    ...names("signals other server sessions", ["pg_terminate_backend", "pg_cancel_backend"]),
    ...names("administers the server", [
      "pg_reload_conf",
      "pg_rotate_logfile",
      "pg_promote",
      "pg_switch_wal",
      "pg_create_restore_point",
      "pg_backup_start",
      "pg_backup_stop",
      "pg_start_backup",
      "pg_stop_backup",
      "pg_wal_replay_pause",
      "pg_wal_replay_resume",
      "pg_import_system_collations",
      "pg_log_backend_memory_contexts",
    ]),
    ...names("creates, changes or exports large objects (server-side files)", [
      "lo_import",
      "lo_export",
      "lo_unlink",
      "lo_create",
      "lo_creat",
      "lo_put",
      "lo_from_bytea",
      "lo_truncate",
      "lo_truncate64",
      "lowrite",
      "lo_open",
    ]),
    ...names("opens a second connection that is not read-only (dblink)", [
      "dblink",
      "dblink_exec",
      "dblink_connect",
      "dblink_connect_u",
      "dblink_send_query",
      "dblink_open",
      "dblink_fetch",
    ]),
    ...names("reads files on the database server", [
      "pg_read_file",
      "pg_read_binary_file",
      "pg_ls_dir",
      "pg_stat_file",
      "pg_ls_logdir",
      "pg_ls_waldir",
      "pg_ls_tmpdir",
      "pg_ls_archive_statusdir",
    ]),
    ...names("writes files on the database server", [
      "pg_file_write",
      "pg_file_rename",
      "pg_file_unlink",
      "pg_file_sync",
      "pg_logdir_ls",
    ]),
    ...names("advances or sets a sequence", ["nextval", "setval"]),
    ...names("takes advisory locks that outlive the query", [
      "pg_advisory_lock",
      "pg_advisory_lock_shared",
      "pg_try_advisory_lock",
      "pg_try_advisory_lock_shared",
      "pg_advisory_xact_lock",
      "pg_advisory_xact_lock_shared",
      "pg_try_advisory_xact_lock",
      "pg_try_advisory_xact_lock_shared",
    ]),
    ...names("sends a notification", ["pg_notify"]),
    ...names("runs SQL given as a string, out of this check's sight", [
      "query_to_xml",
      "query_to_xmlschema",
      "query_to_xml_and_xmlschema",
      "cursor_to_xml",
      "cursor_to_xmlschema",
      // ts_stat(sqlquery) and ts_rewrite(query, select) run their text argument; tablefunc's crosstab and connectby build and run queries.
      "ts_stat",
      "ts_rewrite",
      "crosstab",
      "crosstab2",
      "crosstab3",
      "crosstab4",
      "connectby",
    ]),
    ...names("changes index storage", [
      "brin_summarize_new_values",
      "brin_summarize_range",
      "brin_desummarize_range",
      "gin_clean_pending_list",
    ]),
    ...names("changes replication state", [
      "pg_create_physical_replication_slot",
      "pg_create_logical_replication_slot",
      "pg_drop_replication_slot",
      "pg_replication_slot_advance",
      "pg_copy_physical_replication_slot",
      "pg_copy_logical_replication_slot",
      "pg_logical_slot_get_changes",
      "pg_logical_slot_get_binary_changes",
      "pg_logical_emit_message",
      "pg_replication_origin_create",
      "pg_replication_origin_drop",
      "pg_replication_origin_advance",
    ]),
    ...names("resets statistics", [
      "pg_stat_reset",
      "pg_stat_reset_shared",
      "pg_stat_reset_single_table_counters",
      "pg_stat_reset_single_function_counters",
      "pg_stat_reset_slru",
      "pg_stat_reset_replication_slot",
      "pg_stat_reset_subscription_stats",
      "pg_stat_statements_reset",
    ]),
  },
  sqlite: {
    ...names("loads native code into the database engine", ["load_extension"]),
    ...names("reads or writes files (a sqlite3 shell function)", ["readfile", "writefile", "edit"]),
    ...names("can register a tokenizer from a pointer", ["fts3_tokenizer"]),
  },
  oracle: {},
  vertica: {
    ...names("changes server or session settings", [
      "set_config_parameter",
      "clear_caches",
      "set_data_collector_policy",
      "set_data_collector_time_policy",
    ]),
    ...names("ends or interrupts sessions", [
      "close_session",
      "close_all_sessions",
      "close_user_sessions",
      "interrupt_statement",
    ]),
    ...names("writes files on the server", [
      "export_tables",
      "export_catalog",
      "export_objects",
      "export_statistics",
      "export_directed_queries",
    ]),
    ...names("changes or moves data", [
      "purge",
      "purge_table",
      "purge_partition",
      "purge_projection",
      "drop_partitions",
      "drop_partition",
      "copy_table",
      "copy_partitions_to_table",
      "move_partitions_to_table",
      "swap_partitions_between_tables",
      "import_statistics",
      "analyze_statistics",
      "analyze_histogram",
      "analyze_workload",
      "drop_statistics",
      "do_tm_task",
      "start_refresh",
      "refresh",
      "make_ahm_now",
      "set_ahm_epoch",
      "set_ahm_time",
      "enforce_object_storage_policy",
      "shutdown",
      "reload_spread",
      "start_reaping_files",
      "sync_catalog",
      "hard_drop",
      "rebalance_cluster",
    ]),
  },
};

function names(reason: string, list: string[]): Record<string, string> {
  return Object.fromEntries(list.map((n) => [n, reason]));
}

const DML_ANYWHERE = new Set(["INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "TRUNCATE"]);
const EXPLAIN_OPTIONS = new Set(["ANALYZE", "ANALYSE", "VERBOSE", "QUERY", "PLAN", "LOCAL", "JSON", "ANNOTATED"]);
const EXPLAINABLE = new Set(["SELECT", "WITH", "VALUES", "TABLE"]);

function excerpt(sql: string, tokens: Token[]): string {
  const text = sql.slice(tokens[0].start, tokens[tokens.length - 1].end).replace(/\s+/g, " ");
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function refuse(reason: string): SqlCheck {
  return { ok: false, reason };
}

/**
 * Why a statement that starts with `kw` (then `second`) is not run: the refusal for anything but a
 * query, in the words every dialect shares.
 */
export function statementRefusal(kw: string, second: string | undefined, dialect: Dialect): SqlCheck {
  let reason = STATEMENT_REASONS[kw];
  if (kw === "SET" && (second === "TRANSACTION" || second === "SESSION"))
    reason = "changes the transaction's mode (it could make it READ WRITE); rt fixes the transaction itself";
  if (kw === "EXPLAIN" && dialect === "oracle") reason = "EXPLAIN PLAN writes the plan into PLAN_TABLE";
  if (
    kw === "BEGIN" &&
    dialect !== "oracle" &&
    (second === "READ" || second === "TRANSACTION" || second === "WORK" || second === "ISOLATION")
  )
    reason = TXN;
  return refuse(
    reason
      ? `${kw} ${reason}. rt runs read-only queries only (${QUERY_STARTS[dialect].join(", ")})`
      : `only read-only queries are run: a statement must start with ${QUERY_STARTS[dialect].join(", ")}, and this one starts with ${kw}`,
  );
}

/** The refusal for a data-modifying statement found inside a query (WITH, a subquery). */
export function nestedDmlRefusal(kw: string): SqlCheck {
  return refuse(
    `the query contains ${kw}, which ${DATA} (data-modifying statements are refused inside WITH and subqueries too)`,
  );
}

/** The refusal for a call of a function on the deny list: `shown` is the name as written, with its qualifiers. */
export function deniedFunctionRefusal(shown: string, reason: string): SqlCheck {
  return refuse(`${shown}() ${reason}; refused`);
}

/**
 * Decides whether `sql` is exactly one plain query in `dialect` (SQLite, Oracle, Vertica), reading it
 * with the lexer above, without running it. Refusals say which construct was refused and why.
 */
export function checkReadOnlySql(sql: string, dialect: LexedDialect): SqlCheck {
  let tokens: Token[];
  try {
    tokens = tokenize(sql, dialect);
  } catch (e) {
    return refuse(
      `the SQL could not be read safely (${(e as Error).message}); rt refuses what it cannot read rather than guess`,
    );
  }
  if (tokens.length === 0 || tokens.every((t) => t.kind === "semicolon"))
    return refuse("the SQL is empty (nothing but comments or semicolons)");
  const lead = tokens.find((t) => !(t.kind === "punct" && t.value === "(") && t.kind !== "semicolon");

  // Procedural blocks contain semicolons of their own: name them before counting statements.
  if (lead?.kind === "word" && (lead.value === "DECLARE" || (lead.value === "BEGIN" && dialect === "oracle"))) {
    return refuse(
      `${lead.value} starts an anonymous PL/SQL block; rt refuses procedural code (it can commit, call autonomous transactions and act outside the query). Send a single SELECT`,
    );
  }
  for (let k = 0; k + 1 < tokens.length; k++) {
    const a = tokens[k];
    const b = tokens[k + 1];
    if (
      a.kind === "word" &&
      a.value === "WITH" &&
      b.kind === "word" &&
      (b.value === "FUNCTION" || b.value === "PROCEDURE")
    ) {
      return refuse(
        `WITH ${b.value} declares inline PL/SQL, which can write through an autonomous transaction; refused`,
      );
    }
    if (
      dialect === "vertica" &&
      a.kind === "word" &&
      a.value === "U" &&
      b.kind === "punct" &&
      b.value === "&" &&
      b.start === a.end
    ) {
      return refuse('U&"..." Unicode-escaped names are refused: they would hide a function\'s name from this check');
    }
  }

  const statements = splitStatements(tokens);
  if (statements.length > 1) {
    return refuse(
      `one statement per call: this text holds ${statements.length} statements (the second is "${excerpt(sql, statements[1])}"). Send them one call at a time`,
    );
  }
  const stmt = statements[0];
  let p = 0;
  while (p < stmt.length && stmt[p].kind === "punct" && stmt[p].value === "(") p++;
  const first = stmt[p];
  if (!first || first.kind !== "word") {
    return refuse(
      `a query must start with ${QUERY_STARTS[dialect].join(", ")}; this one starts with "${first ? sql.slice(first.start, first.end) : "("}"`,
    );
  }
  const kw = first.value;
  if (!QUERY_STARTS[dialect].includes(kw)) return statementRefusal(kw, stmt[p + 1]?.value, dialect);
  if (kw === "EXPLAIN") {
    let q = p + 1;
    if (stmt[q]?.kind === "punct" && stmt[q].value === "(") {
      let depth = 0;
      for (; q < stmt.length; q++) {
        if (stmt[q].kind === "punct" && stmt[q].value === "(") depth++;
        if (stmt[q].kind === "punct" && stmt[q].value === ")" && --depth === 0) break;
      }
      q++;
    }
    while (stmt[q]?.kind === "word" && EXPLAIN_OPTIONS.has(stmt[q].value)) q++;
    while (stmt[q]?.kind === "punct" && stmt[q].value === "(") q++;
    const inner = stmt[q];
    if (!inner || inner.kind !== "word" || !EXPLAINABLE.has(inner.value)) {
      const what = inner ? sql.slice(inner.start, inner.end) : "nothing";
      return refuse(
        `EXPLAIN of ${what} is refused: only queries may be explained (EXPLAIN ANALYZE runs the statement)`,
      );
    }
  }

  const denied = FUNCTION_REASONS[dialect];
  for (let k = 0; k < stmt.length; k++) {
    const t = stmt[k];
    const next = stmt[k + 1];
    if (
      t.kind === "word" &&
      t.value === "FOR" &&
      next?.kind === "word" &&
      ["UPDATE", "SHARE", "NO", "KEY"].includes(next.value)
    ) {
      return refuse(
        `SELECT ... FOR ${next.value === "NO" ? "NO KEY UPDATE" : next.value === "KEY" ? "KEY SHARE" : next.value} locks rows; rt only reads`,
      );
    }
    if (t.kind === "word" && DML_ANYWHERE.has(t.value)) return nestedDmlRefusal(t.value);
    if (t.kind === "word" && t.value === "INTO") {
      return refuse("SELECT ... INTO creates a table or assigns variables; rt only reads");
    }
    if ((t.kind === "word" || t.kind === "quoted") && next?.kind === "punct" && next.value === "(") {
      // Oracle calls a function over a database link as name@link(...) (the link may be dotted): the name is before the @.
      let at = k;
      if (dialect === "oracle") {
        let b = k;
        while (
          b >= 2 &&
          stmt[b - 1].kind === "punct" &&
          stmt[b - 1].value === "." &&
          (stmt[b - 2].kind === "word" || stmt[b - 2].kind === "quoted")
        )
          b -= 2;
        if (
          b >= 2 &&
          stmt[b - 1].kind === "punct" &&
          stmt[b - 1].value === "@" &&
          (stmt[b - 2].kind === "word" || stmt[b - 2].kind === "quoted")
        )
          at = b - 2;
      }
      // The called name, with any schema or package qualifiers before it.
      const parts = [stmt[at].value.toLowerCase()];
      for (
        let b = at - 1;
        b >= 1 &&
        stmt[b].kind === "punct" &&
        stmt[b].value === "." &&
        (stmt[b - 1].kind === "word" || stmt[b - 1].kind === "quoted");
        b -= 2
      ) {
        parts.unshift(stmt[b - 1].value.toLowerCase());
      }
      const name = parts[parts.length - 1];
      const reason = denied[name];
      if (reason) return deniedFunctionRefusal(parts.join("."), reason);
      if (dialect === "oracle" && parts.some((s) => s.startsWith("dbms_") || s.startsWith("utl_"))) {
        return refuse(
          `${parts.join(".").toUpperCase()}() belongs to an Oracle DBMS_/UTL_ package, which can act outside the query (jobs, files, network, dynamic SQL); refused`,
        );
      }
    }
  }
  const text = sql.slice(stmt[0].start, stmt[stmt.length - 1].end);
  return { ok: true, statement: text, keyword: kw };
}

/**
 * Splits a possibly qualified name such as `sales.orders`, `"My Schema"."Order"` or `main.t`
 * into its parts. Unquoted parts keep their spelling; `quoted` tells which parts were quoted.
 */
export function splitQualifiedName(name: string, dialect: Dialect): { parts: string[]; quoted: boolean[] } | undefined {
  let tokens: Token[];
  try {
    tokens = tokenize(name, dialect);
  } catch {
    return undefined;
  }
  const parts: string[] = [];
  const quoted: boolean[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (k % 2 === 1) {
      if (t.kind !== "punct" || t.value !== ".") return undefined;
      continue;
    }
    if (t.kind === "word") {
      parts.push(name.slice(t.start, t.end));
      quoted.push(false);
    } else if (t.kind === "quoted") {
      parts.push(t.value);
      quoted.push(true);
    } else return undefined;
  }
  if (parts.length === 0 || tokens.length % 2 === 0) return undefined;
  return { parts, quoted };
}
