// MCP roots: the client's first root is the workspace root; paths under its
// other roots are refused with a clear tool error; a roots change is followed.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { tempTree } from "../helpers.js";
import { call, connectStdio } from "./helpers.js";

test("the client's first root is served instead of --root, and its other roots are refused", async () => {
  const flagRoot = tempTree({ "only-in-flag-root.txt": "flag\n" });
  const first = tempTree({ "a.txt": "first root\n" });
  const second = tempTree({ "b.txt": "second root\n" });
  const s = await connectStdio(flagRoot, [], { roots: [first, second] });
  try {
    const a = await call(s.client, "read", { path: "a.txt" });
    assert.equal(a.isError, false, a.text);
    assert.match(a.text, /first root/);
    assert.equal(
      (await call(s.client, "read", { path: "only-in-flag-root.txt" })).isError,
      true,
      "--root is not served",
    );

    for (const p of [path.join(second, "b.txt"), path.relative(first, path.join(second, "b.txt"))]) {
      const b = await call(s.client, "read", { path: p });
      assert.equal(b.isError, true, p);
      assert.match(b.text, new RegExp(`under ${second}, a root the client offered that this rt server does not serve`));
      assert.match(b.text, new RegExp(`rt mcp --root ${second}`), "the message says what to do");
    }
    // Writes are refused the same way, before anything is written.
    const w = await call(s.client, "write", { path: path.join(second, "new.txt"), content: "x\n" });
    assert.equal(w.isError, true);
    assert.equal(fs.existsSync(path.join(second, "new.txt")), false);
    assert.match(
      s.stderr(),
      new RegExp(`serving ${first} \\(the client's first root\\); refusing its other roots: ${second}`),
    );
  } finally {
    await s.close();
  }
});

test("a roots/list_changed notification moves the server to the new first root", async () => {
  const one = tempTree({ "x.txt": "one\n" });
  const two = tempTree({ "x.txt": "two\n" });
  const s = await connectStdio(one, [], { roots: [one] });
  try {
    assert.match((await call(s.client, "read", { path: "x.txt" })).text, /one/);
    await s.setRoots([two, one]);
    assert.match((await call(s.client, "read", { path: "x.txt" })).text, /two/);
    const refused = await call(s.client, "read", { path: path.join(one, "x.txt") });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /does not serve/);
  } finally {
    await s.close();
  }
});

test("an unusable first root makes tool calls fail with a clear error", async () => {
  const flagRoot = tempTree({ "a.txt": "a\n" });
  const missing = path.join(flagRoot, "no-such-dir");
  const s = await connectStdio(flagRoot, [], { roots: [missing] });
  try {
    const r = await call(s.client, "read", { path: "a.txt" });
    assert.equal(r.isError, true);
    assert.match(r.text, new RegExp(`the client's first root cannot be served: ${missing} does not exist`));
  } finally {
    await s.close();
  }
});

test("an invalid roots/list answer (a root that is not file://) is logged, and --root is served", async () => {
  const flagRoot = tempTree({ "a.txt": "flag root\n" });
  const s = await connectStdio(flagRoot, [], { roots: ["https://example.com/repo"] });
  try {
    assert.match((await call(s.client, "read", { path: "a.txt" })).text, /flag root/);
    assert.match(
      s.stderr(),
      new RegExp(`roots/list failed \\(invalid answer: roots\\.0\\.uri: .*file://.*\\); still serving ${flagRoot}`),
    );
  } finally {
    await s.close();
  }
});

test("a client that offers no roots gets --root", async () => {
  const flagRoot = tempTree({ "a.txt": "flag root\n" });
  const s = await connectStdio(flagRoot, [], { roots: [] });
  try {
    assert.match((await call(s.client, "read", { path: "a.txt" })).text, /flag root/);
  } finally {
    await s.close();
  }
});
