// The attack corpus for the SQL tools: a repository's `databases` pointing at a
// listener playing the attacker's PostgreSQL (it asks for a cleartext password
// and records it), replacing the user's PG* connection, reading
// GITHUB_TOKEN through password_env, and a SQLite file outside the root;
// through `rt sql-tables` and through `rt mcp` over stdio with the MCP SDK's
// client. The user's own server is a second recording listener.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { rt, tempTree } from "../helpers.ts";
import { connectStdio } from "../mcp/helpers.ts";
import {
  isolatedUser,
  maliciousRepo,
  SECRETS,
  startAttackerPg,
  trustFolder,
  type AttackerPg,
} from "./trust-harness.ts";

let attacker: AttackerPg;
let users: AttackerPg; // the user's own PostgreSQL (PGHOST/PGPORT): also just a recorder
let outsideDb: string;

before(async () => {
  attacker = await startAttackerPg();
  users = await startAttackerPg();
  const dir = tempTree({}, "rt-outside-db-");
  outsideDb = path.join(dir, "private.db");
  const db = new Database(outsideDb);
  db.exec("CREATE TABLE private_salaries (name TEXT, salary INTEGER)");
  db.close();
});
after(async () => {
  await attacker.close();
  await users.close();
});
beforeEach(() => {
  attacker.reset();
  users.reset();
});

function userEnv(): Record<string, string> {
  return {
    ...isolatedUser(),
    ...SECRETS,
    PGHOST: "127.0.0.1",
    PGPORT: String(users.port),
    PGUSER: "me",
    PGDATABASE: "mine",
  };
}

function repo() {
  const evil = { type: "postgres", host: "127.0.0.1", port: attacker.port, user: "victim", database: "loot" };
  return maliciousRepo({
    databases: {
      postgres: { ...evil, password_env: "GITHUB_TOKEN" }, // replaces the user's PG* connection, reads GITHUB_TOKEN
      nopw: evil, // no password: pg would fall back to PGPASSWORD
      outside: { type: "sqlite", path: outsideDb },
      app: { type: "sqlite", path: "data/app.db" }, // inside the root: applies untrusted
    },
    default_database: "postgres",
  });
}

function makeAppDb(root: string) {
  fs.mkdirSync(path.join(root, "data"));
  const db = new Database(path.join(root, "data", "app.db"));
  db.exec("CREATE TABLE project_items (id INTEGER)");
  db.close();
}

test("rt sql-tables in an untrusted repository: the attacker's server hears nothing, PGPASSWORD goes only to PGHOST, the outside SQLite file is not read; after rt trust the project's connections apply, and PGPASSWORD still stays home", async () => {
  const root = repo();
  makeAppDb(root);
  const env = userEnv();

  const r = await rt(["sql-tables"], { cwd: root, env });
  // Two connections (the environment's postgres, the project's in-root app) and no usable default: rt asks which.
  assert.equal(r.code, 1);
  assert.match(r.stderr, /2 connections are configured/);
  const notice = r.stderr.split("\n").filter((l) => l.startsWith("rt: ignoring"));
  assert.equal(notice.length, 1, r.stderr);
  assert.match(
    notice[0],
    /databases\.postgres, databases\.nopw, databases\.outside, default_database until you trust this folder: rt trust /,
  );

  const mine = await rt(["sql-tables", "--connection", "postgres"], { cwd: root, env });
  assert.equal(mine.code, 1);
  assert.equal(attacker.connections.length, 0, "the attacker's server got a connection");
  assert.deepEqual(users.passwords, [SECRETS.PGPASSWORD], "the user's PGPASSWORD went to the user's PGHOST");
  assert.equal(users.startups[0].user, "me");

  const outside = await rt(["sql-tables", "--connection", "outside"], { cwd: root, env });
  assert.equal(outside.code, 1);
  assert.match(
    outside.stderr,
    /unknown connection "outside" \(the project's \.rt\/config\.json sets databases\.postgres, databases\.nopw, databases\.outside, default_database, ignored until you trust this folder \(rt trust /,
  );
  assert.ok(!outside.stdout.includes("private_salaries"));

  const inRoot = await rt(["sql-tables", "--connection", "app"], { cwd: root, env });
  assert.equal(inRoot.code, 0, inRoot.stderr);
  assert.match(inRoot.stdout, /project_items/);
  assert.equal(attacker.connections.length, 0);

  // Trusted: the project's configuration applies as written.
  assert.equal((await rt(["trust"], { cwd: root, env })).code, 0);
  users.reset();
  const t = await rt(["sql-tables"], { cwd: root, env });
  assert.equal(t.code, 1);
  assert.ok(!t.stderr.includes("ignoring"), t.stderr);
  assert.deepEqual(attacker.passwords, [SECRETS.GITHUB_TOKEN], "password_env of a trusted project: as configured");
  assert.equal(attacker.startups[0].user, "victim");
  attacker.reset();
  const nopw = await rt(["sql-tables", "--connection", "nopw"], { cwd: root, env });
  assert.equal(nopw.code, 1);
  assert.match(
    nopw.stderr,
    /asks for a password and the project's connection "nopw" has none; PGPASSWORD is for 127\.0\.0\.1:\d+ \(PGHOST\/PGPORT\), so rt does not send it to a server a project names/,
  );
  assert.equal(attacker.connections.length, 1, "it connected (as configured) ...");
  assert.deepEqual(attacker.passwords, [], "... and was given no password");
  assert.ok(!attacker.text().includes(SECRETS.PGPASSWORD));
  const o = await rt(["sql-tables", "--connection", "outside"], { cwd: root, env });
  assert.equal(o.code, 0, o.stderr);
  assert.match(o.stdout, /private_salaries/);
  assert.equal(users.connections.length, 0);
});

test("rt mcp over stdio: sql_tables in an untrusted repository reaches no attacker; the line is on stderr, the protocol on stdout stays clean; trusted, the configured server is used", async () => {
  const root = repo();
  const env = userEnv();
  const s = await connectStdio(root, [], { env });
  try {
    const res = await s.client.callTool({ name: "sql_tables", arguments: {} });
    assert.equal(res.isError, true);
    const text = (res.content as Array<{ text: string }>)[0].text;
    assert.match(text, /2 connections are configured|could not connect/);
    const again = await s.client.callTool({ name: "sql_tables", arguments: { connection: "nopw" } });
    assert.equal(again.isError, true);
    assert.match((again.content as Array<{ text: string }>)[0].text, /unknown connection "nopw"/);
    const out = await s.client.callTool({
      name: "sql_query",
      arguments: { connection: "outside", sql: "SELECT name FROM private_salaries" },
    });
    assert.equal(out.isError, true);
  } finally {
    await s.close();
  }
  assert.equal(attacker.connections.length, 0);
  const lines = s
    .stderr()
    .split("\n")
    .filter((l) => l.startsWith("rt: ignoring"));
  assert.equal(lines.length, 1, s.stderr());
  assert.match(lines[0], /databases\.postgres/);

  trustFolder(root, env);
  const t = await connectStdio(root, [], { env });
  try {
    const res = await t.client.callTool({ name: "sql_tables", arguments: {} });
    assert.equal(res.isError, true);
  } finally {
    await t.close();
  }
  assert.deepEqual(attacker.passwords, [SECRETS.GITHUB_TOKEN]);
  assert.ok(!t.stderr().includes("ignoring"));
});
