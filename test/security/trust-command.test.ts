// `rt trust`, `rt trust --list`, `rt untrust` / `rt trust --revoke` as a user
// runs them (the built CLI): what they print, what they record, and bad input
// that gets a clear error and changes nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rt, tempTree } from "../helpers.ts";
import { isolatedUser, maliciousRepo } from "./trust-harness.ts";

const store = (env: { XDG_CONFIG_HOME: string }) => path.join(env.XDG_CONFIG_HOME, "rt", "trusted.json");

test("rt trust records the workspace root (the git repository when started below it) and shows what it lets through, secrets hidden", async () => {
  const root = maliciousRepo({
    providers: { openai: { base_url: "http://gw.example/v1", api_key: "sk-literal-key" } },
    agent: { max_turns: 3 },
  });
  fs.mkdirSync(path.join(root, "src", "deep"), { recursive: true });
  const env = isolatedUser();
  const r = await rt(["trust"], { cwd: path.join(root, "src", "deep"), env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    `Trusted ${root} (recorded in ${store(env)}; rt untrust ${root} revokes it).\n` +
      "Its .rt/config.json now applies in full, including:\n" +
      '  providers.openai.base_url = "http://gw.example/v1"  (host: gw.example)\n' +
      '  providers.openai.api_key = "(hidden)"\n' +
      "When that file changes, its settings wait again until you trust the folder again. Folders below it are not covered.\n",
  );
  assert.ok(!r.stdout.includes("sk-literal-key"));
  assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(store(env), "utf8")).folders), [root]);
  const list = await rt(["trust", "--list"], { cwd: root, env });
  assert.match(
    list.stdout,
    new RegExp(`^${root}  trusted \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  \\.rt/config\\.json as trusted\\n$`),
  );
});

test("rt trust DIR below a repository says which folder rt would use; --revoke and untrust remove it; a folder that is gone can still be revoked", async () => {
  const root = maliciousRepo({});
  const sub = path.join(root, "packages", "a");
  fs.mkdirSync(sub, { recursive: true });
  const env = isolatedUser();
  const r = await rt(["trust", sub], { cwd: root, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Its \.rt\/config\.json holds nothing that needed trust\./);
  assert.ok(
    r.stdout.includes(
      `Note: started inside the repository ${root}, rt uses its root as the workspace; to trust that: rt trust ${root}`,
    ),
    r.stdout,
  );
  const revoke = await rt(["trust", "--revoke", sub], { cwd: root, env });
  assert.equal(revoke.code, 0, revoke.stderr);
  assert.equal(
    revoke.stdout,
    `No longer trusted: ${sub}. Its .rt/config.json keys that need trust are ignored again.\n`,
  );

  const gone = tempTree({}, "rt-gone-");
  assert.equal((await rt(["trust", gone], { cwd: root, env })).code, 0);
  fs.rmSync(gone, { recursive: true });
  const list = await rt(["trust", "--list"], { cwd: root, env });
  assert.match(list.stdout, /no longer exists \(rt untrust removes it\)/);
  const un = await rt(["untrust", gone], { cwd: root, env });
  assert.equal(un.code, 0, un.stderr);
  assert.equal((await rt(["trust", "--list"], { cwd: root, env })).stdout, `No folder is trusted (${store(env)}).\n`);
});

test("bad input: a clear error, exit 2 (usage) or 1, and trusted.json unchanged", async () => {
  const root = maliciousRepo({ agent: { approval: "auto" } });
  const env = isolatedUser();
  assert.equal((await rt(["trust"], { cwd: root, env })).code, 0);
  const before = fs.readFileSync(store(env));
  const file = path.join(root, "README.md");
  const cases: Array<[string[], number, RegExp]> = [
    [["trust", path.join(root, "nope")], 2, /rt trust: .*nope: no such directory\nUsage: rt trust \[DIR\]/],
    [["trust", file], 2, /rt trust: .*README\.md: not a directory/],
    [["trust", "a", "b"], 2, /rt trust: unexpected argument "b"/],
    [["trust", "--list", root], 2, /--list takes no folder/],
    [["trust", "--bogus"], 2, /Unknown option '--bogus'/],
    [["untrust", tempTree({}, "rt-never-")], 1, /is not trusted; nothing changed/],
  ];
  for (const [args, code, err] of cases) {
    const r = await rt(args, { cwd: root, env });
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, err, args.join(" "));
    assert.deepEqual(fs.readFileSync(store(env)), before, `${args.join(" ")} changed trusted.json`);
  }
  // A broken project file is not trusted (the error names it).
  const broken = maliciousRepo("{ not json");
  const b = await rt(["trust"], { cwd: broken, env });
  assert.equal(b.code, 1);
  assert.match(b.stderr, /rt trust: not trusted: .*\.rt\/config\.json: not valid JSON/);
  assert.deepEqual(fs.readFileSync(store(env)), before);
  // A trusted.json rt cannot read is left as it is.
  fs.writeFileSync(store(env), "{ hand-edited");
  const c = await rt(["trust"], { cwd: root, env });
  assert.equal(c.code, 1);
  assert.match(c.stderr, /trusted\.json: not valid JSON .*; nothing changed/);
  assert.equal(fs.readFileSync(store(env), "utf8"), "{ hand-edited");
});
