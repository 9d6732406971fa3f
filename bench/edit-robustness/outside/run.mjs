// Entry point: `node bench/edit-robustness/outside/run.mjs [--per-class N] [--seed S] [--only substring] [--verbose] [--no-write]`.
// Registers tsx so the TypeScript benchmark (and src/) runs without a build.
import { register } from "tsx/esm/api";

register();
await import("./run.ts");
