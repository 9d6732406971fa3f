// PostgreSQL statements checked on the parse tree of PostgreSQL's own parser:
// libpg_query (PostgreSQL 17's scanner and grammar compiled to WebAssembly, npm
// package `libpg-query`), loaded on first use. A hand lexer disagreed with the
// server about what is a name: it read `1::int4#pg_reload_conf()` as one word
// where PostgreSQL reads the operator `#` and a call. Here every function call
// is a FuncCall node of the tree, whatever its spelling (quoted, schema-qualified,
// Unicode-escaped, behind an operator or a cast, in a subquery, a CTE, a LATERAL
// or ROWS FROM item, ORDER BY, a window, a FILTER...), and the walk visits every
// node.
//
// What a tree cannot tell: which function an operator or a cast runs, and what a
// user-defined function does. Those are stopped by the engine: every statement
// runs in a READ ONLY transaction, and the README recommends a SELECT-only role.
import {
  FUNCTION_REASONS,
  deniedFunctionRefusal,
  nestedDmlRefusal,
  refuse,
  statementRefusal,
  tokenize,
  type SqlCheck,
} from "./sqlText.js";

/** The statement nodes libpg_query emits and the keyword rt names them by. */
const DML_NODES: Record<string, string> = {
  InsertStmt: "INSERT",
  UpdateStmt: "UPDATE",
  DeleteStmt: "DELETE",
  MergeStmt: "MERGE",
};
const LOCK_STRENGTH: Record<string, string> = {
  LCS_FORKEYSHARE: "KEY SHARE",
  LCS_FORSHARE: "SHARE",
  LCS_FORNOKEYUPDATE: "NO KEY UPDATE",
  LCS_FORUPDATE: "UPDATE",
};
/** Statements EXPLAIN takes besides queries and DML, as they are written. */
const EXPLAINED_KINDS: Record<string, string> = {
  CreateTableAsStmt: "CREATE TABLE AS",
  ExecuteStmt: "EXECUTE",
  DeclareCursorStmt: "DECLARE CURSOR",
  RefreshMatViewStmt: "REFRESH MATERIALIZED VIEW",
};
/** parse_bool's spellings of false (PostgreSQL accepts unique prefixes too; anything else counts as true here). */
const FALSE_WORDS = /^(f|fa|fal|fals|false|n|no|off|0)$/i;

interface ParseResult {
  stmts?: { stmt?: Record<string, unknown>; stmt_location?: number; stmt_len?: number }[];
}
interface ParserModule {
  parse(sql: string): Promise<ParseResult>;
}

let parserPromise: Promise<ParserModule> | undefined;

/** libpg-query, imported once, on the first PostgreSQL statement checked (its WebAssembly takes ~50 ms to load). */
function loadParser(): Promise<ParserModule> {
  parserPromise ??= import("libpg-query").then((m) => m as unknown as ParserModule);
  parserPromise.catch(() => (parserPromise = undefined));
  return parserPromise;
}

type Node = Record<string, unknown>;

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The names in a list of String nodes, as the parser read them (quotes removed, unquoted names lower-cased). */
function stringList(v: unknown): string[] {
  return asArray(v).map((x) => {
    const s = (x as { String?: { sval?: string } })?.String;
    return typeof s?.sval === "string" ? s.sval : "";
  });
}

/** A name as it could be written again: quoted when it is not a plain lower-case identifier. */
function showName(parts: string[]): string {
  return parts.map((p) => (/^[a-z_][a-z0-9_$]*$/.test(p) ? p : `"${p.replace(/"/g, '""')}"`)).join(".");
}

/**
 * The deny-list reason for a called name, matched on its last part (the schema does not matter: a
 * function of that name in any schema is refused). Quoted names are compared case-insensitively, which
 * refuses a little more than PostgreSQL would call, never less.
 */
function deniedReason(parts: string[]): string | undefined {
  const last = parts[parts.length - 1];
  return last === undefined ? undefined : FUNCTION_REASONS.postgres[last.toLowerCase()];
}

interface Findings {
  fn?: SqlCheck;
  dml?: SqlCheck;
  into?: SqlCheck;
  lock?: SqlCheck;
}

/**
 * Visits every node under `root` (iteratively: a long chain of operators makes a deep tree) and records
 * the first of each kind of finding.
 */
function walk(root: unknown): Findings {
  const found: Findings = {};
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    const obj = v as Node;
    for (const [key, value] of Object.entries(obj)) {
      if (value === null || typeof value !== "object") continue;
      const node = value as Node;
      if (key === "FuncCall") {
        const parts = stringList(node.funcname);
        const reason = deniedReason(parts);
        if (reason) found.fn ??= deniedFunctionRefusal(showName(parts), reason);
      } else if (key === "ColumnRef" || key === "A_Indirection") {
        // Attribute notation: PostgreSQL reads t.f (or (t).f) as f(t) when f takes t's row type.
        const parts = stringList(key === "ColumnRef" ? node.fields : node.indirection).filter(Boolean);
        if (parts.length >= (key === "ColumnRef" ? 2 : 1)) {
          const reason = deniedReason(parts);
          if (reason)
            found.fn ??= refuse(
              `${showName(parts)} may call ${parts[parts.length - 1]}() in attribute notation (x.f is f(x)); ${parts[parts.length - 1]}() ${reason}; refused`,
            );
        }
      } else if (key === "RangeTableSample") {
        const parts = stringList(node.method);
        const reason = deniedReason(parts);
        if (reason) found.fn ??= deniedFunctionRefusal(showName(parts), reason);
      } else if (key in DML_NODES) {
        found.dml ??= nestedDmlRefusal(DML_NODES[key]);
      } else if (key === "intoClause") {
        found.into ??= refuse("SELECT ... INTO creates a table or assigns variables; rt only reads");
      } else if (key === "lockingClause" && asArray(value).length > 0) {
        const strength =
          (asArray(value)[0] as { LockingClause?: { strength?: string } })?.LockingClause?.strength ?? "";
        found.lock ??= refuse(`SELECT ... FOR ${LOCK_STRENGTH[strength] ?? "UPDATE"} locks rows; rt only reads`);
      }
      stack.push(value);
    }
  }
  return found;
}

/** EXPLAIN's ANALYZE option as PostgreSQL reads it: present without a value, or any value but a false one, runs the statement. */
function explainAnalyzes(options: unknown): boolean {
  return asArray(options).some((o) => {
    const d = (o as { DefElem?: { defname?: string; arg?: Node } })?.DefElem;
    if (!d || (d.defname !== "analyze" && d.defname !== "analyse")) return false;
    if (!d.arg) return true;
    const sval = (d.arg as { String?: { sval?: string } }).String?.sval;
    const bool = (d.arg as { Boolean?: { boolval?: boolean } }).Boolean;
    const ival = (d.arg as { Integer?: { ival?: number } }).Integer;
    if (typeof sval === "string") return !FALSE_WORDS.test(sval);
    if (bool) return bool.boolval === true;
    if (ival) return (ival.ival ?? 0) !== 0;
    return true;
  });
}

/** The first words of a statement, for messages only (the decision is the tree's). */
function leadingWords(text: string): string[] {
  try {
    return tokenize(text, "postgres")
      .filter((t) => !(t.kind === "punct" && t.value === "("))
      .slice(0, 2)
      .map((t) => (t.kind === "word" ? t.value : ""));
  } catch {
    return [];
  }
}

function excerpt(text: string): string {
  const s = text.trim().replace(/\s+/g, " ");
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** Decides whether `sql` is exactly one read-only query, by PostgreSQL's own reading of it. */
export async function checkPostgresSql(sql: string): Promise<SqlCheck> {
  if (sql.trim() === "") return refuse("the SQL is empty (nothing but comments or semicolons)");
  let parser: ParserModule;
  try {
    parser = await loadParser();
  } catch (e) {
    return refuse(
      `PostgreSQL's parser (the libpg-query package) could not be loaded (${(e as Error).message}); rt does not run statements it cannot check. Run npm install in rt's directory`,
    );
  }
  let tree: ParseResult;
  try {
    tree = await parser.parse(sql);
  } catch (e) {
    const err = e as Error & { sqlDetails?: { cursorPosition?: number } };
    const at =
      typeof err.sqlDetails?.cursorPosition === "number" ? ` at character ${err.sqlDetails.cursorPosition + 1}` : "";
    return refuse(
      `PostgreSQL's parser cannot read this SQL (${err.message}${at}); rt refuses what it cannot read rather than guess`,
    );
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length === 0) return refuse("the SQL is empty (nothing but comments or semicolons)");
  const textOf = (s: (typeof stmts)[number]) => {
    const start = s.stmt_location ?? 0;
    return s.stmt_len ? sql.slice(start, start + s.stmt_len) : sql.slice(start);
  };
  if (stmts.length > 1) {
    return refuse(
      `one statement per call: this text holds ${stmts.length} statements (the second is "${excerpt(textOf(stmts[1]))}"). Send them one call at a time`,
    );
  }
  const text = textOf(stmts[0]);
  const stmt = stmts[0].stmt ?? {};
  const kind = Object.keys(stmt)[0] ?? "";
  const body = (stmt[kind] ?? {}) as Node;
  const [first = "", second] = leadingWords(text);
  const found = walk(body);
  /** A refusal of the statement's kind, naming a denied function it calls too (a function call is refused in any statement). */
  const withCalls = (r: SqlCheck): SqlCheck =>
    !r.ok && found.fn && !found.fn.ok
      ? refuse(`${r.reason}; it also calls ${found.fn.reason.replace(/; refused$/, "")}`)
      : r;
  let keyword: string;
  if (kind === "SelectStmt") {
    keyword = first || "SELECT";
  } else if (kind === "VariableShowStmt") {
    keyword = "SHOW";
  } else if (kind === "ExplainStmt") {
    keyword = "EXPLAIN";
    const inner = Object.keys((body.query ?? {}) as Node)[0] ?? "";
    if (inner in DML_NODES) {
      if (explainAnalyzes(body.options)) {
        return withCalls(
          refuse(
            `EXPLAIN ANALYZE of ${DML_NODES[inner]} is refused: ANALYZE runs the statement, and ${DML_NODES[inner]} changes data (plain EXPLAIN only plans it)`,
          ),
        );
      }
      // Without ANALYZE the statement is only planned, never run: its plan is a read.
    } else if (inner !== "SelectStmt") {
      const what = EXPLAINED_KINDS[inner] ?? inner;
      return withCalls(
        refuse(
          `EXPLAIN of ${what} is refused: only queries (and, without ANALYZE, INSERT, UPDATE, DELETE and MERGE) may be explained`,
        ),
      );
    }
  } else if (kind in DML_NODES && first !== DML_NODES[kind]) {
    return withCalls(nestedDmlRefusal(DML_NODES[kind]));
  } else {
    return withCalls(statementRefusal(first || kind, second, "postgres"));
  }
  const refusal = found.fn ?? (kind === "ExplainStmt" ? undefined : found.dml) ?? found.into ?? found.lock;
  if (refusal) return refusal;
  if (kind === "ExplainStmt" && found.dml) {
    // A data-modifying CTE inside the explained statement: allowed only when nothing runs.
    if (explainAnalyzes(body.options))
      return refuse("EXPLAIN ANALYZE runs the statement, and it contains a data-modifying statement; refused");
  }
  return { ok: true, statement: text.trim(), keyword };
}
