// The documentation's structure is held to the code's: docs/architecture.md names every
// folder of src/, and every page the README links to exists.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const REPO = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "..", "..");

/** Every folder under src/, as `src/a/b/`. */
export function srcFolders(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const child = `${rel}/${e.name}`;
      out.push(`${child}/`);
      walk(child);
    }
  };
  walk("src");
  return out.sort();
}

/** Folders the page does not name as `src/...` in backticks. */
export function missingFolders(page: string, folders: readonly string[]): string[] {
  return folders.filter((f) => !page.includes("`" + f + "`"));
}

test("docs/architecture.md names every folder of src/", () => {
  const page = fs.readFileSync(path.join(REPO, "docs", "architecture.md"), "utf8");
  const folders = srcFolders(REPO);
  assert.ok(folders.length >= 10, `expected the src/ tree, found ${folders.join(", ")}`);
  assert.deepEqual(missingFolders(page, folders), []);
});

test("the folder check fails for a page that leaves one out", () => {
  const folders = ["src/agent/", "src/agent/providers/", "src/web/"];
  assert.deepEqual(missingFolders("`src/agent/` and `src/web/`", folders), ["src/agent/providers/"]);
});

test("every docs/ page the README links to exists, and every page is linked from the README", () => {
  const readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
  const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#]+\.md)(#[^)]*)?\)/g)].map((m) => m[1]));
  for (const page of linked)
    assert.ok(fs.existsSync(path.join(REPO, page)), `README links to ${page}, which does not exist`);
  const pages = fs
    .readdirSync(path.join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  assert.deepEqual(
    pages.filter((p) => !linked.has(p)),
    [],
    "every docs/ page is linked from the README",
  );
});

test("links between docs/ pages point at pages that exist", () => {
  const dir = path.join(REPO, "docs");
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith(".md"))) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    for (const m of text.matchAll(/\]\(([^)#:\s]+\.md)(#[^)]*)?\)/g)) {
      assert.ok(fs.existsSync(path.resolve(dir, m[1])), `docs/${f} links to ${m[1]}, which does not exist`);
    }
  }
});

test("the README stays a first page: at most 300 lines", () => {
  const lines = fs.readFileSync(path.join(REPO, "README.md"), "utf8").split("\n").length;
  assert.ok(lines <= 300, `README.md has ${lines} lines; move detail to a page under docs/`);
});
