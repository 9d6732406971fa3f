// Entry point: `node bench/edit-robustness/run.mjs [--per-class N] [--seed S] [--verbose] [--no-write]`.
// Registers tsx so the TypeScript benchmark (and src/) runs without a build.
import { register } from "tsx/esm/api";

register();
await import("./run.ts");
