// The generated PostgreSQL attacks (test/db/pgAttacks.ts) against the real
// server the tests start, through sql_query as the SELECT-only role of docs/databases.md
// and as the superuser. The server is the oracle: for every case it is asked,
// on a separate connection, EXPLAIN (VERBOSE) of the text (planning runs no
// volatile function), which tells whether PostgreSQL reads the text as valid
// and, mostly, shows the call in the plan. Invariants, for every case and both
// roles:
//   - rt refuses every case (each calls the function outside any string or
//     comment), before connecting;
//   - unless the server finds the text's syntax invalid, the refusal names
//     the function;
//   - canaries do not move: data/catalog checksum, pg_conf_load_time(), the
//     other session of the role (alive, still in pg_stat_activity), the large
//     object the attacks would export, files in a directory the server may
//     write to, replication slots and origins, statistics resets, advisory
//     locks, notifications on a LISTENing session.
// A last test runs a few of the same texts with rt's check bypassed, to show
// that they are real attacks here and that the canaries see them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { soak, tempTree } from "../helpers.ts";
import { createWorkspace, type Workspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { runPostgres } from "../../src/db/postgres.ts";
import type { PostgresSpec } from "../../src/db/connections.ts";
import { FUNCTION_REASONS } from "../../src/db/sqlText.ts";
import { fill, generatePgAttacks, OPERATOR_CHARS, type PgAttack } from "./pgAttacks.ts";
import { startPostgres, type PgServer } from "./pgServer.ts";
import { READER, adminClient, pgChecksum, setupPgFixture } from "./pgFixture.ts";
import { trustFolder } from "../security/trust-harness.ts";

let server: PgServer;
let ws: Workspace;
let out: string;
let oracle: pg.Client;
let listener: pg.Client;
let victim: pg.Client;
let victimPid: number;
let lo: number;
let notifications = 0;
let schemas = new Map<string, string>();

async function connectVictim(): Promise<void> {
  victim = new pg.Client({ host: server.host, port: server.port, user: READER, database: "app" });
  victim.on("error", () => undefined);
  await victim.connect();
  victimPid = Number((await victim.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
}

before(async () => {
  server = await startPostgres();
  await setupPgFixture(server);
  oracle = await adminClient(server);
  listener = await adminClient(server);
  listener.on("notification", () => notifications++);
  await listener.query("LISTEN rt_canary");
  lo = Number((await oracle.query("SELECT lo_from_bytea(0, 'canary'::bytea) AS oid")).rows[0].oid);
  await connectVictim();
  const denied = Object.keys(FUNCTION_REASONS.postgres);
  const r = await oracle.query(
    "SELECT DISTINCT ON (p.proname) p.proname, n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.proname = ANY($1) ORDER BY p.proname, n.nspname",
    [denied],
  );
  schemas = new Map(r.rows.map((x: { proname: string; nspname: string }) => [x.proname, x.nspname]));
  const root = tempTree({}, "rt-pg-attacks-");
  const base = { type: "postgres", host: server.host, port: server.port, database: "app" };
  fs.mkdirSync(path.join(root, ".rt"));
  fs.writeFileSync(
    path.join(root, ".rt", "config.json"),
    JSON.stringify({ databases: { reader: { ...base, user: READER }, admin: { ...base, user: server.admin } } }),
  );
  trustFolder(root, { HOME: root }); // connections to a server apply only in a trusted folder
  ws = createWorkspace({ root, env: { HOME: root } });
  out = fs.mkdtempSync(path.join(os.tmpdir(), "rt-pg-attacks-out-"));
  fs.chmodSync(out, 0o777);
});

after(async () => {
  for (const c of [oracle, listener, victim]) await c?.end().catch(() => undefined);
  server?.stop();
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

const vars = () => ({ OUT: out, PORT: String(server.port), VICTIM: String(victimPid), LO: String(lo) });

/** Everything an attack could move, as one comparable object. */
async function canaries(): Promise<Record<string, unknown>> {
  const r = await oracle.query(`SELECT pg_conf_load_time()::text AS conf,
      (SELECT count(*) FROM pg_stat_activity WHERE usename = '${READER}')::int AS reader_sessions,
      (SELECT count(*) FROM pg_stat_activity WHERE pid = ${victimPid})::int AS victim_listed,
      (SELECT count(*) FROM pg_replication_slots)::int AS slots,
      (SELECT count(*) FROM pg_replication_origin)::int AS origins,
      (SELECT stats_reset::text FROM pg_stat_database WHERE datname = 'app') AS db_stats_reset,
      (SELECT stats_reset::text FROM pg_stat_bgwriter) AS bgwriter_reset,
      (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory')::int AS advisory_locks,
      (SELECT md5(string_agg(data::text, '' ORDER BY pageno)) FROM pg_largeobject WHERE loid = ${lo}) AS lo_data,
      pg_walfile_name(pg_current_wal_lsn()) AS wal_file`);
  let victimAlive = false;
  try {
    victimAlive = (await victim.query("SELECT 1 AS one")).rows[0].one === 1;
  } catch {
    victimAlive = false;
  }
  await new Promise((res) => setImmediate(res));
  return { ...r.rows[0], victimAlive, notifications, files: fs.readdirSync(out), checksum: await pgChecksum(server) };
}

type Reading = { ok: true; plan: string } | { ok: false; code: string; message: string };

/**
 * How the server reads the text: EXPLAIN (VERBOSE) in a read-only transaction that is rolled back, sent
 * as one simple query (one round trip). The server parses the whole string before it runs any of it,
 * so a text that is not valid syntax fails as it would alone (nothing runs); one that fails when it
 * runs leaves the transaction aborted, and the catch rolls it back.
 */
async function serverReading(a: PgAttack): Promise<Reading> {
  try {
    const r = (await oracle.query(
      `BEGIN READ ONLY;\n${fill(a.oracle, vars())}\n;\nROLLBACK`,
    )) as unknown as pg.QueryResult[];
    return { ok: true, plan: (r[1].rows as Record<string, string>[]).map((x) => x["QUERY PLAN"]).join("\n") };
  } catch (e) {
    const err = e as { code?: string; message: string };
    await oracle.query("ROLLBACK");
    return { ok: false, code: err.code ?? "", message: err.message };
  }
}

function plansCall(plan: string, fn: string): boolean {
  return new RegExp(`(^|[^\\w$])${fn}\\(|Function Scan on \\w+\\.${fn}\\b`).test(plan);
}

const ATTACKS = () =>
  generatePgAttacks(Object.keys(FUNCTION_REASONS.postgres), (fn) => schemas.get(fn) ?? "pg_catalog");

test("generated attacks: every denied function × spellings, contexts and operator characters around it", () => {
  const all = ATTACKS();
  const denied = Object.keys(FUNCTION_REASONS.postgres);
  assert.ok(denied.length >= 90, `${denied.length} denied names`);
  assert.equal(new Set(all.map((a) => a.id)).size, all.length, "case ids are unique");
  for (const fn of denied) {
    for (const o of OPERATOR_CHARS) {
      assert.ok(
        all.some((a) => a.fn === fn && a.sql.includes(`x${o}${fn}(`)),
        `${fn}: ${o} right before the name`,
      );
      assert.ok(
        all.some((a) => a.fn === fn && a.sql.includes(`)::text::int${o}`)),
        `${fn}: ${o} right after the call`,
      );
    }
  }
  assert.ok(
    all.some((a) => a.sql === "SELECT 1::int4#pg_reload_conf()::int"),
    "the reported bypass is one of the cases",
  );
});

/**
 * The cases run against the server: all of them in a soak run. In npm test a diagonal of the
 * function × shape grid (a shape is a case's spelling, context or operator placement, the same for
 * every function): the case of function number f and shape number s runs when (f + s) is a multiple
 * of SAMPLE_STRIDE. So every shape is tried on about one function in SAMPLE_STRIDE, every function
 * meets about one shape in SAMPLE_STRIDE (spellings, contexts and operators all among them), and the
 * reported bypass runs too. No shape and no function is left out (checked below).
 */
const SAMPLE_STRIDE = 16;
function casesToRun(): PgAttack[] {
  const all = ATTACKS();
  const fnIndex = new Map<string, number>();
  const shapeIndex = new Map<string, number>();
  const shapeOf = (a: PgAttack) => a.id.slice(a.fn.length + 1);
  for (const a of all) {
    if (!fnIndex.has(a.fn)) fnIndex.set(a.fn, fnIndex.size);
    if (!shapeIndex.has(shapeOf(a))) shapeIndex.set(shapeOf(a), shapeIndex.size);
  }
  const sample = all.filter(
    (a) =>
      (fnIndex.get(a.fn)! + shapeIndex.get(shapeOf(a))!) % SAMPLE_STRIDE === 0 ||
      a.sql === "SELECT 1::int4#pg_reload_conf()::int",
  );
  assert.deepEqual(new Set(sample.map((a) => a.fn)), new Set(fnIndex.keys()), "every function is in the sample");
  assert.deepEqual(new Set(sample.map(shapeOf)), new Set(shapeIndex.keys()), "every shape is in the sample");
  return soak(sample, all);
}

test("generated attacks through sql_query, as the SELECT-only role and as the superuser: nothing runs, the refusal names the function, canaries unchanged", async (t) => {
  const all = casesToRun();
  const start = await canaries();
  const tally = { planned: 0, otherError: 0, syntax: 0, unplanned: 0 };
  let current = "";
  for (const a of all) {
    const sql = fill(a.sql, vars());
    const reading = await serverReading(a);
    if (reading.ok) tally[plansCall(reading.plan, a.fn) ? "planned" : "unplanned"]++;
    else tally[reading.code === "42601" ? "syntax" : "otherError"]++;
    // Every case calls the function outside any string or comment: whatever the server makes of it, rt refuses it,
    // and names the function unless the text is not even valid syntax.
    const mustName = reading.ok || reading.code !== "42601";
    for (const connection of ["reader", "admin"]) {
      const r = await callTool(ws, "sql_query", { connection, sql });
      const where = `${a.id} as ${connection}: ${JSON.stringify(sql)} (server: ${reading.ok ? "reads it" : `${reading.code} ${reading.message}`})`;
      assert.equal(r.success, false, `${where}: rt ran it`);
      assert.equal(r.refused_by, "rt", `${where}: refused by rt's check, before any connection: ${r.error}`);
      if (mustName)
        assert.match(
          r.error!,
          new RegExp(`(^|[^\\w$])"?${a.fn}"?(\\(\\)|\\b)`),
          `${where}: the refusal names the function`,
        );
    }
    if (a.fn !== current) {
      // One function's cases done: nothing moved.
      if (current) assert.deepEqual(await canaries(), start, `after the cases of ${current}`);
      current = a.fn;
    }
  }
  assert.deepEqual(await canaries(), start, "after every case");
  t.diagnostic(
    `${all.length} cases, each refused as both roles; the server plans ${tally.planned} of them with the call visible in EXPLAIN VERBOSE and ${tally.unplanned} without (VALUES, LIMIT), ` +
      `${tally.otherError} fail for another reason (no such function or operator for these argument types), ${tally.syntax} are not valid syntax`,
  );
  assert.ok(tally.planned > all.length / 3, "a large share are calls the server would plan and run");
});

test("the same texts with rt's check bypassed are real attacks here, and the canaries see them", async () => {
  const spec = (user: string): PostgresSpec => ({
    name: "raw",
    origin: "test",
    timeoutMs: 10_000,
    engine: "postgres",
    host: server.host,
    port: server.port,
    user,
    database: "app",
  });
  const run = (user: string, sql: string) =>
    runPostgres(spec(user), { sql: fill(sql, vars()), limit: 5, timeoutMs: 10_000 });
  const attacks = new Map(ATTACKS().map((a) => [a.id, a.sql]));
  const conf = async () => (await oracle.query("SELECT pg_conf_load_time()::text AS t")).rows[0].t as string;

  // pg_reload_conf() behind `#`, as the superuser, inside rt's READ ONLY transaction: the configuration is reloaded.
  const before = await conf();
  await new Promise((r) => setTimeout(r, 20));
  await run(server.admin, attacks.get("pg_reload_conf/op:#:cast-op-call-cast")!);
  assert.notEqual(await conf(), before, "pg_reload_conf() ran");

  // pg_terminate_backend() behind `#`, as the SELECT-only role: another session of the role is killed.
  await run(READER, attacks.get("pg_terminate_backend/op:#:cast-op-call-cast")!).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 200));
  await assert.rejects(victim.query("SELECT 1"), "the other session of the role was terminated");
  await connectVictim();

  // lo_export() and adminpack's pg_file_write() behind operators, as the superuser: files appear where the server may write.
  await run(server.admin, attacks.get("lo_export/op:|:ident-op-call")!).catch(() => undefined);
  await run(server.admin, attacks.get("pg_file_write/op:%:cast-op-call-cast")!).catch(() => undefined);
  assert.deepEqual(fs.readdirSync(out).sort(), ["file_write.txt", "lo_export.txt"]);
  for (const f of fs.readdirSync(out)) fs.rmSync(path.join(out, f));
});
