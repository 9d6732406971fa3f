// How tool results are drawn in the conversation: a command's output is text,
// whatever it begins with (rt's `--- stdout ---` / `--- stderr ---` headers
// are not a diff), and an edit's result with a unified diff is drawn as one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Conversation } from "../../src/ui/tui/conversation.ts";
import { conversationLines, type ViewTools } from "../../src/ui/tui/lines.ts";
import { bare } from "../../src/ui/tui/palette.ts";

const tools: ViewTools = {
  palette: bare,
  markdown: (text) => text,
  wrap: (text, width) => {
    const out: string[] = [];
    for (let i = 0; i < text.length || i === 0; i += width) out.push(text.slice(i, i + width));
    return out;
  },
};

test("a bash result that starts with --- stdout --- shows its stdout and its stderr header as text, not as a diff", () => {
  const c = new Conversation(() => 0);
  const output = "--- stdout ---\nbuilt 3 files\n--- stderr ---\nwarning: slow disk\nexit code 0";
  c.apply({ type: "tool_start", id: "B1", name: "bash", args: { command: "make" }, protocol: "tools" });
  c.apply({ type: "tool_end", id: "B1", name: "bash", success: true, output, started_at: 0, ended_at: 1 });
  const lines = conversationLines(c, tools, { width: 80, expanded: true, now: 0 });
  const text = lines.join("\n");
  assert.doesNotMatch(text, /more diff lines|✓ changed/);
  assert.match(text, /⎿ --- stdout ---\n\s+built 3 files\n\s+--- stderr ---\n\s+warning: slow disk/);
});

test("an edit's result carrying a unified diff is still drawn as a diff", () => {
  const c = new Conversation(() => 0);
  const output = "Edited a.py:1-1\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2";
  c.apply({
    type: "tool_start",
    id: "E1",
    name: "edit",
    args: { path: "a.py", old_string: "x = 1", new_string: "x = 2" },
    protocol: "tools",
  });
  c.apply({ type: "tool_end", id: "E1", name: "edit", success: true, output, started_at: 0, ended_at: 1 });
  const text = conversationLines(c, tools, { width: 80, expanded: false, now: 0 }).join("\n");
  assert.match(text, /⎿ ✓ Edited a\.py:1-1\n\s+@@ -1 \+1 @@\n\s+-x = 1\n\s+\+x = 2/);
});
