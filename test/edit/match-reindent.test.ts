// Re-indentation of new_string by the shift the match needed: spaces, tabs,
// both directions, lines new_string adds at depths old_string never used.
import { test } from "node:test";
import assert from "node:assert/strict";
import { replaceInText as applyEdit } from "../../src/edit/match.ts";

function edit(text: string, oldString: string, newString: string): { tier: string; text: string } {
  const r = applyEdit(text, oldString, newString);
  if (!r.ok) assert.fail(`${r.reason}: ${r.message}`);
  return { tier: r.outcome.tier, text: r.text };
}

const SPACES = "class A:\n    def f(self):\n        if self.x:\n            return 1\n        return 2\n";

test("dedented quote (shift +8): new lines, including deeper ones, move by +8", () => {
  const old = "if self.x:\n    return 1\nreturn 2";
  const neu = "if self.x:\n    log()\n    return 1\nelse:\n    return 3\nreturn 2";
  const r = edit(SPACES, old, neu);
  assert.equal(r.tier, "indent-shifted");
  assert.equal(
    r.text,
    "class A:\n    def f(self):\n        if self.x:\n            log()\n            return 1\n        else:\n            return 3\n        return 2\n",
  );
});

test("over-indented quote (shift -4): new lines move back by 4", () => {
  const old = "            if self.x:\n                return 1";
  const neu = "            if self.x and self.y:\n                return 1";
  const r = edit(SPACES, old, neu);
  assert.equal(r.tier, "indent-shifted");
  assert.equal(r.text, SPACES.replace("if self.x:", "if self.x and self.y:"));
});

test("a new line dedented below old_string's shallowest line is clamped at column 0", () => {
  const text = "def f():\n    a()\n    b()\n";
  const r = edit(text, "        a()\n        b()", "        a()\n        b()\nc()");
  assert.equal(r.text, "def f():\n    a()\n    b()\nc()\n");
});

const TABS = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n\treturn 2\n}\n";

test("tabs in the file, spaces in old_string: new_string comes back with tabs", () => {
  const old = "    if x {\n        return 1\n    }";
  const neu = "    if x {\n        log()\n        return 1\n    }";
  const r = edit(TABS, old, neu);
  assert.equal(r.tier, "indent-shifted");
  assert.equal(r.text, "func f() {\n\tif x {\n\t\tlog()\n\t\treturn 1\n\t}\n\treturn 2\n}\n");
});

test("tabs in the file, 2-space levels in old_string: the tab width is inferred", () => {
  const r = edit(TABS, "  if x {\n    return 1\n  }", "  if x {\n    return 10\n  }");
  assert.equal(r.text, TABS.replace("return 1\n", "return 10\n"));
});

test("tabs in the file, dedented spaces in old_string: shift and tabs together", () => {
  const r = edit(TABS, "if x {\n    return 1\n}", "if x {\n    return 1\n} else {\n    return 0\n}");
  assert.equal(r.tier, "indent-shifted");
  assert.equal(r.text, "func f() {\n\tif x {\n\t\treturn 1\n\t} else {\n\t\treturn 0\n\t}\n\treturn 2\n}\n");
});

test("spaces in the file, tabs in old_string: new_string comes back with spaces", () => {
  const old = "\tdef f(self):\n\t\tif self.x:";
  const neu = "\tdef f(self, y):\n\t\tif self.x:\n\t\t\ty()";
  const r = edit(SPACES, old, neu);
  assert.equal(r.tier, "indent-shifted");
  assert.equal(
    r.text,
    "class A:\n    def f(self, y):\n        if self.x:\n            y()\n            return 1\n        return 2\n",
  );
});

test("irregular drift: each old indentation maps to its file indentation, new depths measured from the nearest", () => {
  const text = "def f():\n    if a:  \n        b()\n    c()\n";
  // First line unindented (copied from after the indentation), the rest right, a trailing blank lost.
  const old = "if a:\n        b()\n    c()";
  const neu = "if a:\n        b()\n            deeper()\n    c()\n    d()";
  const r = edit(text, old, neu);
  assert.equal(r.tier, "trimmed-lines");
  assert.equal(r.text, "def f():\n    if a:  \n        b()\n            deeper()\n    c()\n    d()\n");
});

test("the first line's indentation comes from the file when new_string keeps it unindented", () => {
  const text = "def f():\n    x = compute(1)  \n    return x\n";
  const r = edit(text, "x = compute(1)\n    return x", "x = compute(2)\n    return x");
  // The changed line is the caller's: the file's trailing blanks are not carried onto it (issue 10).
  assert.equal(r.text, "def f():\n    x = compute(2)\n    return x\n");
});

test("blank lines in new_string stay blank", () => {
  const r = edit(SPACES, "if self.x:\n    return 1", "if self.x:\n\n    return 1");
  assert.equal(r.text, "class A:\n    def f(self):\n        if self.x:\n\n            return 1\n        return 2\n");
});
