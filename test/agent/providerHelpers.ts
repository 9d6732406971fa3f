// Helpers for the provider tests: drain a stream into its parts and its error,
// and a loopback port where nothing listens.
import net from "node:net";
import { ProviderError, type StreamPart } from "../../src/agent/providers/types.ts";

export interface Drained {
  parts: StreamPart[];
  error?: ProviderError;
  text: string;
  reasoning: string;
}

export async function drain(stream: AsyncIterable<StreamPart>): Promise<Drained> {
  const parts: StreamPart[] = [];
  let error: ProviderError | undefined;
  try {
    for await (const p of stream) parts.push(p);
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    error = e;
  }
  const text = parts.map((p) => (p.type === "text" ? p.delta : "")).join("");
  const reasoning = parts.map((p) => (p.type === "reasoning" ? p.delta : "")).join("");
  return { parts, error, text, reasoning };
}

/** A port on 127.0.0.1 that was free a moment ago (connecting to it is refused). */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Retries and timeouts small enough for tests. */
// Fast retries; timeouts long enough for a loaded CI machine's first request (the provider's SDK loads on first use): tests of the timeouts set their own.
export const FAST = { retry: { baseDelayMs: 1, maxDelayMs: 5 }, timeouts: { firstPartMs: 10_000, idleMs: 10_000 } };
