// Whether any language server was started in this process: the edit hook
// (policy.ts) loads the LSP modules only then, so editing without the lsp
// tool never pays for them.
let active = false;

export function lspActive(): boolean {
  return active;
}

export function markLspActive(): void {
  active = true;
}
