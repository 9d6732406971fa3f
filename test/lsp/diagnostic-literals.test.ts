// A diagnostic's message may quote a literal type declared in another file: the real
// typescript-language-server says `Type '"sk-live-..."' is not assignable to type 'number'` for a
// string exported by b.ts and misused in a.ts, and pyright says `Literal['...']`. The lsp tool and
// an edit's diagnostics replace a quoted value the diagnosed file does not hold by a marker; a
// literal written in the file itself is still shown.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { createWorkspace, type Workspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { lspManager } from "../../src/lsp/manager.ts";
import { OUTSIDE_LITERAL } from "../../src/lsp/format.ts";
import { tempTree } from "../helpers.ts";

const workspaces: Workspace[] = [];
function ws(root: string): Workspace {
  const w = createWorkspace({
    root,
    state: true,
    env: { ...process.env, XDG_CONFIG_HOME: path.join(root, ".no-user-config") },
  });
  workspaces.push(w);
  return w;
}
after(async () => {
  for (const w of workspaces) await lspManager(w).stopAll();
});

const SECRETS = ["sk-live-4f8a9c2e7b1d", "sk-obj-secret-99", "tok-", "-zz"];

test("TypeScript: other files' literals are redacted in diagnostics and an edit's errors; the file's own stay", async () => {
  const root = tempTree({
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler", noEmit: true },
      include: ["src"],
    }),
    "src/b.ts": [
      'export const KEY = "sk-live-4f8a9c2e7b1d" as const;',
      'export const CONFIG = { token: "sk-obj-secret-99" } as const;',
      "export const TEMPLATE = `tok-${Date.now()}-zz` as `tok-${number}-zz`;",
      "",
    ].join("\n"),
    "src/a.ts": [
      'import { KEY, CONFIG, TEMPLATE } from "./b";',
      'const local = "in-file-literal-42" as const;',
      'const n1: "a" | "b" = KEY;',
      'const n2: "a" | "b" = local;',
      'const n3: "a" | "b" = TEMPLATE;',
      "const c: { other: string } = CONFIG;",
      "console.log(n1, n2, n3, c);",
      "",
    ].join("\n"),
  });
  const w = ws(root);
  const d = await callTool(w, "lsp", { operation: "diagnostics", path: "src/a.ts" });
  assert.equal(d.success, true, d.error);
  const lines = d.output.split("\n");
  assert.equal(
    lines[0],
    `src/a.ts:3:7: error: Type '"${OUTSIDE_LITERAL}"' is not assignable to type '"a" | "b"'. [typescript 2322]`,
  );
  assert.equal(
    lines[1],
    `src/a.ts:4:7: error: Type '"in-file-literal-42"' is not assignable to type '"a" | "b"'. [typescript 2322]`,
  );
  assert.equal(
    lines[2],
    `src/a.ts:5:7: error: Type '\`${OUTSIDE_LITERAL}\`' is not assignable to type '"a" | "b"'. [typescript 2322]`,
  );
  // An object type quoted whole: its member's value is redacted, its shape stays.
  assert.match(
    lines[3],
    /^src\/a\.ts:6:7: error: Property 'other' is missing in type '\{ readonly token: "(.*?)"; \}'/,
  );
  assert.equal(/token: "(.*?)"/.exec(lines[3])?.[1], OUTSIDE_LITERAL);
  const whole = JSON.stringify(d);
  for (const s of SECRETS) assert.ok(!whole.includes(s), `the lsp tool's result holds ${s}: ${whole}`);

  // An edit that introduces the same misuse: its errors are redacted the same way.
  const edit = await callTool(
    w,
    "edit",
    {
      path: "src/a.ts",
      old_string: "console.log(n1, n2, n3, c);",
      new_string: 'const n4: "c" = KEY;\nconsole.log(n1, n2, n3, n4, c);',
    },
    { editDiagnostics: true },
  );
  assert.equal(edit.success, true, edit.error);
  assert.match(
    edit.output,
    new RegExp(
      `this edit introduced 1 error:\\nsrc/a\\.ts:7:7: error: Type '"${OUTSIDE_LITERAL.replace(/[()]/g, "\\$&")}"' is not assignable to type '"c"'\\.`,
    ),
  );
  const editWhole = JSON.stringify(edit);
  for (const s of SECRETS) assert.ok(!editWhole.includes(s), `the edit's result holds ${s}: ${editWhole}`);
});

test("pyright: the values inside Literal[...] from another module are redacted; the file's own stay", async () => {
  const root = tempTree({
    "pkg/__init__.py": "",
    "pkg/b.py": 'from typing import Final\n\nKEY: Final = "sk-py-secret-77"\n',
    "pkg/a.py":
      'from typing import Final\nfrom pkg.b import KEY\n\nmine: Final = "in-file-py-5"\nx: int = KEY\ny: int = mine\n',
  });
  const w = ws(root);
  const d = await callTool(w, "lsp", { operation: "diagnostics", path: "pkg/a.py" });
  assert.equal(d.success, true, d.error);
  assert.ok(!JSON.stringify(d).includes("sk-py-secret-77"), d.output);
  assert.match(
    d.output,
    new RegExp(`pkg/a\\.py:5:10: error: Type "Literal\\['${OUTSIDE_LITERAL.replace(/[()]/g, "\\$&")}'\\]"`),
  );
  assert.match(d.output, /pkg\/a\.py:6:10: error: Type "Literal\['in-file-py-5'\]"/);
  // The types' own double quotes are not taken for literals.
  assert.match(d.output, /is not assignable to declared type "int"/);
});
