// Runs code with some environment variables hidden from it: client libraries
// that read their own credentials from the environment (OPENAI_API_KEY,
// V_PASSWORD...) must use only what rt gives them.

/**
 * Runs `make` (a client library's constructor) with these environment variables
 * out of sight, and puts them back. The official clients read credentials and
 * extra headers from the environment on construction (OPENAI_ADMIN_KEY becomes an
 * Authorization header, OPENAI_CUSTOM_HEADERS and ANTHROPIC_CUSTOM_HEADERS add
 * any header, ANTHROPIC_AUTH_TOKEN a bearer token); rt decides which key and
 * headers a request carries (resolve.ts), so the clients must not find their own.
 * Construction is synchronous: nothing else runs while the variables are hidden.
 */
export function withoutEnv<T>(names: readonly string[], make: () => T): T {
  const saved = new Map<string, string>();
  for (const n of names) {
    const v = process.env[n];
    if (v !== undefined) {
      saved.set(n, v);
      delete process.env[n];
    }
  }
  try {
    return make();
  } finally {
    for (const [n, v] of saved) process.env[n] = v;
  }
}
