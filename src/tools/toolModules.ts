// Every module that defines tools, for the registry (registry.ts). Here each one
// is imported up front, which is what tests, the library and the agent under tsx
// get. The `rt` executable's bundle replaces this file (scripts/build.mjs,
// plugin "lazy-tool-modules") with one whose functions require each module the
// first time they are called, so that `rt open` evaluates open.ts and what it
// imports, not all 22 tools: a tool's code, schema and description load on first
// use. Keep the shape: one `import * as NAME from "./FILE.js"` line per module,
// and NAME: () => NAME in toolModules (the plugin rebuilds it from the imports).
import * as read from "./read.js";
import * as open from "./open.js";
import * as scroll from "./scroll.js";
import * as find from "./find.js";
import * as grep from "./grep.js";
import * as grepFile from "./grepFile.js";
import * as ls from "./ls.js";
import * as bash from "./bash.js";
import * as bashOutput from "./bashOutput.js";
import * as killShell from "./killShell.js";
import * as writeOutput from "./writeOutput.js";
import * as sqlQuery from "./sqlQuery.js";
import * as sqlTables from "./sqlTables.js";
import * as sqlDescribe from "./sqlDescribe.js";
import * as editLines from "./editLines.js";
import * as editRange from "./editRange.js";
import * as insertAt from "./insertAt.js";
import * as editFile from "./editFile.js";
import * as edit from "./edit.js";
import * as multiEdit from "./multiEdit.js";
import * as write from "./write.js";
import * as undo from "./undo.js";
import * as symbols from "./symbols.js";
import * as astGrep from "./astGrep.js";
import * as lsp from "./lsp.js";
import * as notebookEdit from "./notebookEdit.js";
import * as webFetch from "./webFetch.js";
import * as webSearch from "./webSearch.js";

export const toolModules = {
  read: () => read,
  open: () => open,
  scroll: () => scroll,
  find: () => find,
  grep: () => grep,
  grepFile: () => grepFile,
  ls: () => ls,
  bash: () => bash,
  bashOutput: () => bashOutput,
  killShell: () => killShell,
  writeOutput: () => writeOutput,
  sqlQuery: () => sqlQuery,
  sqlTables: () => sqlTables,
  sqlDescribe: () => sqlDescribe,
  editLines: () => editLines,
  editRange: () => editRange,
  insertAt: () => insertAt,
  editFile: () => editFile,
  edit: () => edit,
  multiEdit: () => multiEdit,
  write: () => write,
  undo: () => undo,
  symbols: () => symbols,
  astGrep: () => astGrep,
  lsp: () => lsp,
  notebookEdit: () => notebookEdit,
  webFetch: () => webFetch,
  webSearch: () => webSearch,
};
