// Bundles the CLI and the library with esbuild. Code splitting keeps the CLI's
// start-up lean: heavy modules (tree-sitter, MCP, providers, databases) are loaded
// through dynamic import() only by the commands that need them.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";

// dist/ is not emptied first: tests running in parallel may be using it.
await build({
  entryPoints: { cli: "src/cli.ts", index: "src/index.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  sourcemap: false,
  logLevel: "warning",
});
// Type declarations for library users.
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
