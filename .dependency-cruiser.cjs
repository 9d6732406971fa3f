// The import rules of src/ (docs/architecture.md explains them), checked in
// npm test by test/architecture/layers.test.ts. Layers, top to bottom; a
// module may import its own layer and the layers below, never above:
//
//   faces     src/faces/, src/cli.ts, src/index.ts   (CLI, rt call, MCP, library API)
//   ui        src/ui/                                (terminal rendering, prompts, chat)
//   agent     src/agent/                             (the loop, providers, sessions)
//   tools     src/tools/                             (the registry: one file per tool)
//   services  src/workspace/, src/edit/, src/shell/, src/db/, src/lsp/, src/web/
//   base      src/parsers/, src/base/                (config, limits, errors, ...)
//
// Within services, src/edit/ is the pure editing engine: it reads text and
// returns text, so it imports no other service.
const LAYERS = [
  { name: "faces", path: "^src/(faces/|cli\\.ts$|index\\.ts$)" },
  { name: "ui", path: "^src/ui/" },
  { name: "agent", path: "^src/agent/" },
  { name: "tools", path: "^src/(tools|extensions|mcpClient)/" },
  { name: "services", path: "^src/(workspace|edit|shell|db|lsp|web)/" },
  { name: "base", path: "^src/(parsers/|base/)" },
];

/** One rule per layer: nothing in it imports a layer above it. */
const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-from-${layer.name}`,
  comment: `${layer.name} imports only its own layer and the layers below (${LAYERS.slice(i + 2).map((l) => l.name).join(", ") || "nothing"})`,
  severity: "error",
  from: { path: layer.path, pathNot: LAYERS[0].path },
  to: { path: LAYERS.slice(0, i + 1).map((l) => l.path) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "no import cycles in src/ (type-only imports count: they are the seams that leak)",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    ...upward,
    {
      name: "edit-engine-is-pure",
      comment: "src/edit/ reads text and returns text: it imports no workspace, shell or db module",
      severity: "error",
      from: { path: "^src/edit/" },
      to: { path: "^src/(workspace|shell|db)/" },
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports are dependencies too.
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|test|bench)/" },
  },
};
