// `--model scripted/PATH.json`: rt's real loop over a script of answers, as a user testing
// their own tools would run it: a call rt runs, then the answer; an error turn; a script
// that does not follow the format is refused naming what is wrong.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rt, tempTree } from "../helpers.ts";

function sessionMessages(cwd: string): Array<Record<string, any>> {
  const dir = path.join(cwd, ".rt", "sessions");
  const file = fs.readdirSync(dir).find((f) => f.endsWith(".jsonl"))!;
  return fs
    .readFileSync(path.join(dir, file), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((r) => r.t === "message")
    .map((r) => r.message ?? r);
}

describe("scripted provider", () => {
  test("a scripted call runs through rt's tools and the scripted answer follows", async () => {
    const cwd = tempTree({
      "notes.txt": "alpha\nbeta\n",
      "script.json": JSON.stringify({
        turns: [
          { text: "Reading.", tool_calls: [{ name: "read", arguments: { path: "notes.txt" } }] },
          { text: "It says alpha and beta." },
        ],
      }),
    });
    const r = await rt(["run", "--model", "scripted/script.json", "--approval", "plan", "what is in notes.txt?"], {
      cwd,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /It says alpha and beta\./);
    const msgs = sessionMessages(cwd);
    const tool = msgs.find((m) => m.role === "tool");
    assert.equal(tool?.name, "read");
    assert.match(tool?.content, /1: alpha/);
  });

  test("an error turn is the provider error rt reports; turns that run out are said", async () => {
    const cwd = tempTree({ "s.json": JSON.stringify([{ error: { kind: "auth", message: "scripted: bad key" } }]) });
    const r = await rt(["run", "--model", "scripted/s.json", "hi"], { cwd });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /scripted: bad key/);
    const empty = tempTree({ "s.json": "[]" });
    const r2 = await rt(["run", "--model", "scripted/s.json", "hi"], { cwd: empty });
    assert.notEqual(r2.code, 0);
    assert.match(r2.stderr, /has no answer left: its 0 turn\(s\) were all played/);
  });

  test("a malformed script is refused before any turn, naming the field", async () => {
    const cwd = tempTree({ "s.json": JSON.stringify({ turns: [{ txt: "typo" }] }) });
    const r = await rt(["run", "--model", "scripted/s.json", "hi"], { cwd });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /scripted model .*s\.json: turns\.0: Unrecognized key: "txt"/);
  });
});
