// The hand lexer (SQLite, Oracle, Vertica) and operator characters: the bug
// class that broke the PostgreSQL check (`1::int4#pg_reload_conf()` read as one
// name) checked in the other dialects.
//   - SQLite, against SQLite's own compiler: for generated texts (every
//     operator character before and after every denied function, and SQLite's
//     parameter prefixes), whenever `EXPLAIN` of the text compiles a call of a
//     denied function (a Function/PureFunc opcode naming it), rt refuses it.
//   - Vertica (a PostgreSQL descendant: # is XOR, @ absolute value, :: a cast)
//     and Oracle (# and $ belong to names, @ names a database link) have no
//     server here; the same generated texts are checked against their
//     documented lexical rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { checkReadOnlySql, FUNCTION_REASONS, tokenize } from "../../src/db/sqlText.ts";
import { OPERATOR_CHARS } from "./pgAttacks.ts";

const PLACEMENTS = [
  (o: string, call: string) => `SELECT x${o}${call} FROM (SELECT 1 AS x)`,
  (o: string, call: string) => `SELECT 1${o}${call}`,
  (o: string, call: string) => `SELECT ${call}${o}1`,
  (o: string, call: string) => `SELECT ${o}${call}`,
  (o: string, call: string) => `SELECT 1 ${o}${o} ${call}`,
  (o: string, call: string) => `SELECT CAST(1 AS int)${o}${call}`,
];
/** SQLite's parameter prefixes and quoting characters, on top of the operator characters. */
const SQLITE_EXTRA = [":", "$", "[", "]", ".", ",", "'", '"', "\\"];

test("SQLite: whenever SQLite compiles a call of a denied function, rt refuses it (SQLite's EXPLAIN as the oracle)", () => {
  const db = new Database(":memory:");
  let compiledCalls = 0;
  let cases = 0;
  try {
    for (const fn of Object.keys(FUNCTION_REASONS.sqlite)) {
      for (const o of [...OPERATOR_CHARS, ...SQLITE_EXTRA]) {
        for (const place of PLACEMENTS) {
          for (const call of [`${fn}('x')`, `"${fn}"('x')`, `${fn.toUpperCase()} ('x')`, `${fn}/**/('x')`]) {
            const sql = place(o, call);
            cases++;
            let calls = false;
            try {
              const ops = db.prepare(`EXPLAIN ${sql}`).all() as { opcode: string; p4: string | null }[];
              calls = ops.some((r) => /Func/.test(r.opcode) && String(r.p4).toLowerCase().startsWith(`${fn}(`));
            } catch {
              calls = false; // SQLite cannot compile it: nothing can run.
            }
            if (!calls) continue;
            compiledCalls++;
            const r = checkReadOnlySql(sql, "sqlite");
            assert.ok(!r.ok, `SQLite compiles a call of ${fn} in ${JSON.stringify(sql)}, and rt let it through`);
            assert.match(r.reason, new RegExp(`${fn}\\(\\)`), sql);
          }
        }
      }
    }
  } finally {
    db.close();
  }
  // load_extension and fts3_tokenizer exist in better-sqlite3's SQLite; readfile, writefile and edit belong to the sqlite3 shell.
  assert.ok(compiledCalls > 100, `${compiledCalls} of ${cases} generated texts compile to a call`);
});

test("SQLite: # is not part of a name; :name, @name, $name and #name are parameters, as SQLite's tokenizer reads them", () => {
  const kinds = (sql: string) => tokenize(sql, "sqlite").map((t) => `${t.kind}:${t.value}`);
  assert.deepEqual(kinds("x#y"), ["word:X", "param:#y"]);
  assert.deepEqual(kinds("a$b :p @q $r #s"), ["word:A$B", "param::p", "param:@q", "param:$r", "param:#s"]);
});

test("Vertica: every operator character before or after a meta-function is still a call of it", () => {
  for (const fn of Object.keys(FUNCTION_REASONS.vertica)) {
    for (const o of OPERATOR_CHARS) {
      for (const place of PLACEMENTS) {
        for (const call of [`${fn}()`, `${fn.toUpperCase()}()`, `"${fn}"()`, `public.${fn}()`]) {
          const sql = place(o, call);
          // `1 -- f()` comments the call out: nothing is called.
          if (sql.includes("--")) continue;
          const r = checkReadOnlySql(sql, "vertica");
          assert.ok(!r.ok, `vertica: ${sql} passed`);
          // `1 /* f()` leaves a comment open: refused as unreadable.
          if (!sql.includes("/*")) assert.match(r.reason, new RegExp(`${fn}\\(\\)`, "i"), `vertica: ${sql}`);
        }
      }
    }
  }
  // The reported shape, and Vertica's :: cast and @ (absolute value) operator.
  assert.match(
    (checkReadOnlySql("SELECT 1::int#CLOSE_ALL_SESSIONS()::int", "vertica") as { reason: string }).reason,
    /close_all_sessions\(\) ends or interrupts sessions/,
  );
  assert.match(
    (checkReadOnlySql("SELECT @CLOSE_ALL_SESSIONS()", "vertica") as { reason: string }).reason,
    /close_all_sessions\(\)/,
  );
  assert.match(
    (checkReadOnlySql("SELECT 1 :CLOSE_ALL_SESSIONS()", "vertica") as { reason: string }).reason,
    /close_all_sessions\(\)/,
  );
});

test("Oracle: # and $ belong to names; a packaged call over a database link (pkg.f@link(...)) is still a call of the package", () => {
  const words = (sql: string) =>
    tokenize(sql, "oracle")
      .filter((t) => t.kind === "word")
      .map((t) => t.value);
  assert.deepEqual(words("SELECT a#b, c$d FROM t"), ["SELECT", "A#B", "C$D", "FROM", "T"]);
  assert.ok(checkReadOnlySql("SELECT a#b FROM t", "oracle").ok, "a#b is one Oracle name");
  for (const sql of [
    "SELECT dbms_pipe.send_message@loopback('x') FROM dual",
    "SELECT sys.dbms_pipe.send_message@remote.example.com('x') FROM dual",
    "SELECT utl_http.request@l(url) FROM t",
    'SELECT "DBMS_SCHEDULER"."RUN_JOB"@"LINK"(\'j\') FROM dual',
  ]) {
    const r = checkReadOnlySql(sql, "oracle");
    assert.ok(!r.ok, `oracle: ${sql} passed`);
    assert.match(r.reason, /belongs to an Oracle DBMS_\/UTL_ package/, sql);
  }
  // A table over a link is a read.
  assert.ok(checkReadOnlySql("SELECT * FROM orders@erp", "oracle").ok);
});
