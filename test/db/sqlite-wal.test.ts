// Reading a WAL-mode SQLite database, with the real better-sqlite3 and real
// writer processes: a read creates nothing beside the database and always sees
// every committed transaction, including those still only in the -wal file
// (what `immutable=1` would silently miss).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createRequire } from "node:module";
import Database from "better-sqlite3";
import { tempTree } from "../helpers.ts";
import { runSqlite } from "../../src/db/sqlite.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve("better-sqlite3");

function walDb(rows = 3): { dir: string; file: string } {
  const dir = tempTree({}, "rt-wal-");
  const file = path.join(dir, "app.db");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  const ins = db.prepare("INSERT INTO t (v) VALUES (?)");
  for (let i = 0; i < rows; i++) ins.run(`row${i}`);
  db.close(); // the last connection checkpoints and removes -wal and -shm
  return { dir, file };
}

const listing = (dir: string) => fs.readdirSync(dir).sort();
const bytes = (f: string) => fs.readFileSync(f).toString("base64");
const count = async (file: string, limit = 5) => {
  const r = await runSqlite(file, { sql: "SELECT count(*) AS n FROM t", limit, timeoutMs: 10_000 });
  return { n: r.rows[0][0] as number, via: r.via };
};

/** A writer process: keeps one connection open; each "insert" line commits a row and answers with the new count. */
function writer(
  file: string,
  pragmas: string[],
): { proc: ChildProcessWithoutNullStreams; send(cmd: string): Promise<string> } {
  const src = `
    const Database = require(${JSON.stringify(BETTER_SQLITE3)});
    const db = new Database(${JSON.stringify(file)});
    for (const p of ${JSON.stringify(pragmas)}) db.pragma(p);
    const ins = db.prepare("INSERT INTO t (v) VALUES ('w')");
    const n = db.prepare("SELECT count(*) AS n FROM t");
    require("readline").createInterface({ input: process.stdin }).on("line", (l) => {
      if (l === "insert") { ins.run(); console.log(n.get().n); }
      if (l === "close") { db.close(); console.log("closed"); process.exit(0); }
    });
    console.log("ready");`;
  const proc = spawn(process.execPath, ["-e", src], { stdio: ["pipe", "pipe", "pipe"] });
  let buf = "";
  const waiters: ((l: string) => void)[] = [];
  proc.stdout.on("data", (c: Buffer) => {
    buf += c.toString();
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      waiters.shift()?.(line);
    }
  });
  const next = () => new Promise<string>((res) => waiters.push(res));
  const ready = next();
  return {
    proc,
    async send(cmd: string) {
      await ready;
      const p = next();
      proc.stdin.write(`${cmd}\n`);
      return p;
    },
  };
}

test("a WAL database with no -wal file: read from an in-memory copy, nothing created beside it, the file byte-identical", async () => {
  const { dir, file } = walDb();
  const before = bytes(file);
  assert.deepEqual(listing(dir), ["app.db"]);
  assert.deepEqual(await count(file), { n: 3, via: "snapshot" });
  assert.deepEqual(listing(dir), ["app.db"], "no -wal or -shm created");
  assert.equal(bytes(file), before);
  // Through the tool, as configured by a workspace.
  fs.mkdirSync(path.join(dir, ".rt"));
  fs.writeFileSync(
    path.join(dir, ".rt", "config.json"),
    JSON.stringify({ databases: { app: { type: "sqlite", path: "app.db" } } }),
  );
  const r = await callTool(createWorkspace({ root: dir, env: { HOME: dir } }), "sql_query", {
    sql: "SELECT v FROM t ORDER BY id",
  });
  assert.equal(r.success, true, r.error);
  assert.deepEqual(r.rows, [["row0"], ["row1"], ["row2"]]);
  assert.deepEqual(listing(dir), [".rt", "app.db"]);
  // Writes are still refused by SQLite itself on the copy.
  await assert.rejects(
    runSqlite(file, { sql: "DELETE FROM t", limit: 5, timeoutMs: 10_000 }),
    /sqlite3_stmt_readonly is false/,
  );
  assert.deepEqual(listing(dir), [".rt", "app.db"]);
});

test("a database in rollback-journal mode: opened in place, nothing created", async () => {
  const dir = tempTree({}, "rt-wal-");
  const file = path.join(dir, "app.db");
  const db = new Database(file);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t (v) VALUES ('a')");
  db.close();
  assert.deepEqual(await count(file), { n: 1, via: "file" });
  assert.deepEqual(listing(dir), ["app.db"]);
});

test("a connected writer with uncheckpointed rows: rt reads through its -wal and sees them; no file is created or removed, the database and -wal are unchanged", async () => {
  const { dir, file } = walDb();
  const w = writer(file, ["wal_autocheckpoint = 0"]);
  try {
    for (let i = 0; i < 5; i++) assert.equal(await w.send("insert"), String(4 + i));
    assert.deepEqual(listing(dir), ["app.db", "app.db-shm", "app.db-wal"]);
    const dbBytes = bytes(file);
    const walBytes = bytes(`${file}-wal`);
    // The rows are only in the -wal file: the database file alone has 3.
    const inFile = new Database(Buffer.from(fs.readFileSync(file)).fill(1, 18, 20), { readonly: true });
    assert.equal(
      (inFile.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n,
      3,
      "the database file alone is stale",
    );
    inFile.close();
    assert.deepEqual(await count(file), { n: 8, via: "wal" }, "rt sees the committed rows still in the -wal");
    assert.deepEqual(listing(dir), ["app.db", "app.db-shm", "app.db-wal"]);
    assert.equal(bytes(file), dbBytes);
    assert.equal(bytes(`${file}-wal`), walBytes);
    // The writer goes on; the next read is current again.
    assert.equal(await w.send("insert"), "9");
    assert.equal((await count(file)).n, 9);
  } finally {
    await w.send("close");
  }
  assert.deepEqual(listing(dir), ["app.db"], "the writer, the last connection, removed its -wal and -shm");
  assert.deepEqual(await count(file), { n: 9, via: "snapshot" });
  assert.deepEqual(listing(dir), ["app.db"]);
});

test("a -wal file left by a writer that stopped without checkpointing: its rows are read; SQLite creates the missing -shm (docs/databases.md says why)", async () => {
  const { dir, file } = walDb();
  const w = writer(file, ["wal_autocheckpoint = 0"]);
  await w.send("insert");
  await w.send("insert");
  const crashDb = fs.readFileSync(file);
  const crashWal = fs.readFileSync(`${file}-wal`);
  await w.send("close");
  // The state a killed writer leaves: the database, and a -wal holding two committed rows.
  fs.writeFileSync(file, crashDb);
  fs.writeFileSync(`${file}-wal`, crashWal);
  assert.deepEqual(listing(dir), ["app.db", "app.db-wal"]);
  assert.deepEqual(await count(file), { n: 5, via: "wal" });
  assert.deepEqual(listing(dir), ["app.db", "app.db-shm", "app.db-wal"]);
  assert.equal(
    bytes(file),
    crashDb.toString("base64"),
    "the database file is unchanged (a read-only connection never checkpoints)",
  );
});

test("a WAL database larger than the in-memory limit is opened in place: SQLite creates -wal and -shm (docs/databases.md says why), the data is unchanged", async () => {
  const { dir, file } = walDb(50);
  const before = bytes(file);
  const r = await runSqlite(file, { sql: "SELECT count(*) FROM t", limit: 5, timeoutMs: 10_000 }, 1024);
  assert.deepEqual([r.rows[0][0], r.via], [50, "wal-too-big"]);
  assert.deepEqual(listing(dir), ["app.db", "app.db-shm", "app.db-wal"]);
  assert.equal(bytes(file), before);
});

test("writers that come and go during reads: every read is consistent and current, and no file is left when they are done", async (t) => {
  const { dir, file } = walDb();
  let committed = 3;
  const writers = (async () => {
    for (let round = 0; round < 12; round++) {
      const w = writer(file, round % 2 ? [] : ["wal_autocheckpoint = 1"]);
      for (let i = 0; i < 3; i++) committed = Number(await w.send("insert"));
      await w.send("close");
    }
  })();
  const seen: string[] = [];
  let done = false;
  void writers.then(() => (done = true));
  while (!done) {
    const floor = committed;
    const { n, via } = await count(file);
    // The writer answers after its commit: one commit may be done and not yet reported.
    const ceiling = committed + 1;
    assert.ok(
      n >= floor && n <= ceiling,
      `read ${n} rows via ${via}; ${floor} were reported committed before the read, ${committed} after`,
    );
    seen.push(via!);
  }
  await writers;
  assert.equal((await count(file)).n, 39);
  // A read that overlaps the last writer's close keeps that writer from removing its files (SQLite removes them only
  // when no other connection is open); the next writer or rt's next read through them leaves them as they are.
  const left = listing(dir).filter((f) => f !== "app.db");
  assert.ok(
    left.every((f) => f === "app.db-wal" || f === "app.db-shm"),
    `only SQLite's own files may remain: ${left}`,
  );
  assert.ok(seen.length > 0);
  t.diagnostic(
    `${seen.length} reads: ${["snapshot", "wal"].map((v) => `${seen.filter((x) => x === v).length} ${v}`).join(", ")}; left beside the database: ${left.join(", ") || "nothing"}`,
  );
});
