// Picks the driver of a connection's engine. Apart from driver.ts (what every
// driver shares, which the drivers import) so that no driver imports its loader.
import type { ConnectionSpec } from "./connections.js";
import type { Driver } from "./driver.js";

/** Loads the driver for a connection (dynamic import: only the engine in use is loaded). */
export async function openDriver(spec: ConnectionSpec): Promise<Driver> {
  switch (spec.engine) {
    case "sqlite":
      return (await import("./sqlite.js")).sqliteDriver(spec);
    case "postgres":
      return (await import("./postgres.js")).postgresDriver(spec);
    case "oracle":
      return (await import("./oracle.js")).oracleDriver(spec);
    case "vertica":
      return (await import("./vertica.js")).verticaDriver(spec);
  }
}
