// The glob matcher find and grep use on ripgrep's output (ripgrep's own --glob
// would override .gitignore), and the ripgrep binary from the npm package.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { ALWAYS_SKIPPED, baseArgs, globMatcher, rgPath } from "../../src/tools/shared/ripgrep.ts";

test("globMatcher: ripgrep/gitignore glob syntax on root-relative paths", () => {
  const cases: Array<[string, string, boolean]> = [
    ["*.ts", "a.ts", true],
    ["*.ts", "src/lib/a.ts", true], // no "/": the file name anywhere
    ["*.ts", "a.tsx", false],
    ["*.ts", "src.ts/readme", false],
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "x/y/a.ts", true],
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["src/**/*.ts", "lib/src/a.ts", false],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/x/a.ts", false], // "*" does not cross "/"
    ["/src/*.ts", "src/a.ts", true],
    ["src/**", "src/a/b", true],
    ["src/**", "srcx/a", false],
    ["x/**/y", "x/y", true],
    ["x/**/y", "x/a/b/y", true],
    ["*.{css,md}", "docs/a.md", true],
    ["*.{css,md}", "a.mdx", false],
    ["{a,b{c,d}}.txt", "bd.txt", true],
    ["file?.txt", "file1.txt", true],
    ["file?.txt", "file10.txt", false],
    ["file[0-2].txt", "file1.txt", true],
    ["file[0-2].txt", "file3.txt", false],
    ["file[!0-2].txt", "file3.txt", true],
    ["file[!0-2].txt", "file1.txt", false],
    ["a\\*b", "a*b", true],
    ["a\\*b", "axb", false],
    ["*", ".env", true],
    ["a+b(c)$.ts", "a+b(c)$.ts", true],
    ["a.ts", "aXts", false],
  ];
  for (const [glob, p, want] of cases) assert.equal(globMatcher(glob)(p), want, `${glob} vs ${p}`);
  assert.equal(globMatcher("*.TS", true)("src/a.ts"), true);
  assert.equal(globMatcher("*.TS")("src/a.ts"), false);
});

test("ripgrep comes from the npm package; base arguments skip the usual junk and honor .gitignore without git", () => {
  assert.ok(fs.statSync(rgPath()).isFile());
  const args = baseArgs();
  assert.ok(args.includes("--no-require-git"));
  assert.ok(args.includes("--hidden"));
  assert.ok(args.includes("--no-config"));
  for (const d of [".git", "node_modules", ".rt"]) {
    assert.ok(ALWAYS_SKIPPED.includes(d));
    assert.ok(args.includes(`!${d}`));
  }
});
