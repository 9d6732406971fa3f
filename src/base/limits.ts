// Every window size, cap and timeout in one place, each with its default from the seeds.

/** `open`: window height. */
export const OPEN_WINDOW = 100;
/** `open PATH:START-END`: largest explicit range shown. */
export const OPEN_MAX_RANGE = 200;
/** `scroll`: chunk size and overlap between consecutive windows. */
export const SCROLL_CHUNK = 100;
export const SCROLL_OVERLAP = 2;

/** `read`: default number of lines. */
export const READ_DEFAULT_LIMIT = 2000;
/** `read`, `open`, `grep`: a longer line is cut and marked. */
export const MAX_LINE_CHARS = 2000;
/** `read`: output cap in bytes. */
export const READ_MAX_OUTPUT_BYTES = 50 * 1024;

/** `find`: default number of paths listed. */
export const FIND_DEFAULT_CAP = 200;
/** `grep`: default number of matches shown. */
export const GREP_DEFAULT_CAP = 200;
/** `grep`: a match line longer than this is cut. */
export const GREP_MAX_LINE_CHARS = 500;
/** `grep`: ripgrep is killed after this many milliseconds. */
export const GREP_TIMEOUT_MS = 30_000;
/** `grep`: most lines of context before or after a match. */
export const GREP_MAX_CONTEXT = 50;
/** `grep`: a search still running reports how many matches it found this often (CLI progress line, MCP progress). */
export const GREP_PROGRESS_EVERY_MS = 250;
/** `ls`: entries listed; tree depth by default. */
export const LS_MAX_ENTRIES = 200;
export const LS_DEFAULT_DEPTH = 3;
/** `ls`: deepest tree asked for. */
export const LS_MAX_DEPTH = 20;

/** Binary detection: bytes sampled from the start of a file. */
export const BINARY_SAMPLE_BYTES = 8 * 1024;

/** Files at least this large are read through the cached line-offset index, never whole. */
export const LARGE_FILE_BYTES = 8 * 1024 * 1024;
/** Line-offset index: one checkpoint every this many lines. */
export const INDEX_CHECKPOINT_LINES = 1024;
/**
 * Line-offset index: bytes read per chunk while scanning (bounds peak memory). Small
 * enough to stay in the CPU cache between the read and the newline search, which
 * scans faster than 16 MiB chunks did (BENCHMARKS.md).
 */
export const INDEX_SCAN_CHUNK = 1024 * 1024;

/**
 * `edit`, `multi_edit`: on a text larger than this (characters), the approximate matching tiers run
 * against EDIT_FUZZY_BUDGET_MS; smaller texts always get every tier (the result never depends on the machine).
 */
export const EDIT_FUZZY_UNBOUNDED_CHARS = 1_000_000;
/**
 * `edit`, `multi_edit`: CPU time (ms) the approximate matching tiers may spend on one old_string in a larger
 * text; then the search stops and the edit is refused, saying so (an old_string that is not in a 9 MB file
 * took seconds of fuzzy search).
 */
export const EDIT_FUZZY_BUDGET_MS = 200;
/** Editing tools hold a file in memory: larger files are refused. */
export const EDIT_MAX_BYTES = 64 * 1024 * 1024;

/** State files rt reads back from `.rt/` (line IDs, indexes, views, journal indexes): a larger one is ignored. */
export const STATE_FILE_MAX_BYTES = 256 * 1024 * 1024;
/** Session logs: the largest `.rt/sessions/*.jsonl` rt reads back. */
export const SESSION_FILE_MAX_BYTES = 1024 * 1024 * 1024;

/** Persistent line IDs are kept for files up to this size. */
export const LINE_ID_MAX_BYTES = 64 * 1024 * 1024;

/** `--show-diff` on a file git tracks: each git command rt runs for it is given up after this long (the edit's own diff is shown then). */
export const GIT_DIFF_TIMEOUT_MS = 10_000;
/** `--show-diff`: the largest `git diff` output kept (a larger one is replaced by the edit's own diff). */
export const GIT_DIFF_MAX_BYTES = 4 * 1024 * 1024;

/** Checkpoints (workspace/checkpoints.ts): each git command of the shadow store is given up after this long. */
export const CHECKPOINT_GIT_TIMEOUT_MS = 120_000;
/** Checkpoints: the most bytes one shadow git command may print (the files a rewind restores are read in one batch). */
export const CHECKPOINT_GIT_MAX_BYTES = 1024 * 1024 * 1024;
/**
 * Checkpoints are pruned (Checkpoints.prune, when a session first takes one) beyond these limits: older
 * than this many days, more than this many, a store larger than this many bytes (the oldest go first).
 * The newest CHECKPOINT_KEEP_RECENT and those the session itself names (its prompts' rewind points)
 * are never pruned.
 */
export const CHECKPOINT_MAX_AGE_DAYS = 30;
export const CHECKPOINT_MAX_COUNT = 1_000;
export const CHECKPOINT_MAX_STORE_BYTES = 2 * 1024 * 1024 * 1024;
export const CHECKPOINT_KEEP_RECENT = 20;
/**
 * Checkpoints: objects no checkpoint holds any more are deleted only once older than this (git prune
 * --expire): another rt process on the same tree may be writing a checkpoint whose objects are not yet named.
 */
export const CHECKPOINT_PRUNE_GRACE_S = 3_600;

/** Line edits: how many lines either side of a change are looked at to place its content (indentation) in a very long file. */
export const INDENT_WINDOW_LINES = 5_000;
/** Syntax validation: files larger than this are not parsed (a tree-sitter parse of 32 MB takes seconds and gigabytes); the result says so. */
export const SYNTAX_CHECK_MAX_BYTES = 8 * 1024 * 1024;
/** Syntax validation: a parse taking longer than this is abandoned and the edit is not checked. */
export const SYNTAX_PARSE_TIMEOUT_MS = 5_000;
/** Syntax validation: parse trees kept for reuse (the version each file was last validated at), and the largest text kept. */
export const PARSE_CACHE_ENTRIES = 8;
export const PARSE_CACHE_MAX_CHARS = 8 * 1024 * 1024;
/** Syntax validation by the language's own compiler (python3, V8): texts longer than this are left to tree-sitter. */
export const NATIVE_CHECK_MAX_CHARS = 4 * 1024 * 1024;
/** Syntax validation: python3 answering later than this is given up on (the check is then skipped). */
export const PYTHON_CHECK_TIMEOUT_MS = 3_000;
/** Syntax validation error text: problems shown, and lines of context above and below each. */
export const SYNTAX_PROBLEMS_SHOWN = 3;
export const SYNTAX_CONTEXT_LINES = 2;

/** SQL tools: rows shown by default, and the most a call may ask for. */
export const SQL_DEFAULT_ROWS = 100;
export const SQL_MAX_ROWS = 10_000;
/** SQL tools: statement timeout unless a connection sets `timeout_ms`. */
export const SQL_STATEMENT_TIMEOUT_MS = 30_000;
/** SQL tools: giving up on connecting to a database server. */
export const SQL_CONNECT_TIMEOUT_MS = 10_000;
/** SQL tools: a cell longer than this is cut in the ASCII table (the JSON result keeps it whole). */
export const SQL_MAX_CELL_CHARS = 200;

/** `bash`: default and largest timeout, in seconds. */
export const BASH_DEFAULT_TIMEOUT_S = 120;
export const BASH_MAX_TIMEOUT_S = 600;
/** `bash`: after SIGTERM to a timed-out process group, SIGKILL follows this many milliseconds later. */
export const BASH_KILL_GRACE_MS = 2_000;
/** `bash`, `bash_output`: stdout and stderr are each cut to this many bytes, keeping head and tail. */
export const BASH_MAX_OUTPUT_BYTES = 50 * 1024;
/** `bash`: the full text of a cut stream is saved under `.rt/shell/`, up to this many bytes. */
export const BASH_SAVED_OUTPUT_MAX_BYTES = 64 * 1024 * 1024;
/** Background shells: unread output kept per shell (older unread output is dropped beyond it). */
export const BACKGROUND_BUFFER_MAX_BYTES = 8 * 1024 * 1024;
/**
 * Regular expressions from the model (bash_output's filter): the most time one read's matching
 * may take; a backtracking pattern is stopped there and the call fails, the process goes on.
 */
export const REGEX_FILTER_BUDGET_MS = 2_000;
/** Background shells: at most this many running at once per process. */
export const BACKGROUND_MAX_SHELLS = 16;
/** Sandbox: size of the private writable /tmp (a tmpfs, so it is memory). */
export const SANDBOX_TMP_MAX_BYTES = 1024 * 1024 * 1024;
/** Sandbox: the probe that checks bubblewrap can create its namespaces gives up after this long. */
export const SANDBOX_PROBE_TIMEOUT_MS = 10_000;
/** Structural check: shell code inside strings (bash -c, eval, trap) is followed this many levels deep. */
export const CHECK_MAX_NESTING = 4;
/** Saved full outputs (`.rt/shell/`, `.rt/tool-output/`): the newest this many files are kept in each. */
export const SAVED_OUTPUTS_KEEP = 100;
/** `write_output`: largest file it creates. */
export const WRITE_OUTPUT_MAX_BYTES = 10 * 1024 * 1024;
/** sql_tables: names listed at most. */
export const SQL_TABLES_MAX_ROWS = 500;
/**
 * SQLite in WAL mode with no -wal file: up to this size the file is read into memory and queried
 * there, so that nothing is created beside it (SQLite itself would create -wal and -shm files).
 * Larger files are opened in place (README, "Read-only database inspection").
 */
export const SQLITE_WAL_SNAPSHOT_MAX_BYTES = 256 * 1024 * 1024;

/** `rt mcp`: how long the server waits for the client's answer to roots/list before serving --root instead. */
export const MCP_ROOTS_TIMEOUT_MS = 5_000;
/** `rt acp`: an edit's diff is sent to the editor for files up to this size (larger edits show their text result only). */
export const ACP_DIFF_MAX_BYTES = 1024 * 1024;
/** `rt acp`: how far the monotonic and the wall clock may drift apart when an edit's journal entry is matched to its call. */
export const ACP_CLOCK_SLACK_MS = 1000;
/** `rt acp`: the characters of one embedded resource of a prompt passed to the model (the rest is cut, and said). */
export const ACP_EMBEDDED_MAX_CHARS = 200_000;
/** `rt mcp`: the largest JSON-RPC message accepted (one stdio line, one HTTP body); a larger one is answered with a JSON-RPC error. */
export const MCP_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** `rt mcp`: a tool result's text longer than this many characters is cut in the middle (tools cap their own output; this bounds any). */
export const MCP_TEXT_MAX_CHARS = 128 * 1024;
/** `rt mcp`: a structured result (grep matches, sql rows) keeps the items that fit in this many bytes of JSON. */
export const MCP_STRUCTURED_MAX_BYTES = 128 * 1024;
/** `rt mcp`: a result's _meta: each string cut at this many characters, each array at this many items, the whole kept under this many bytes. */
export const MCP_META_STRING_MAX_CHARS = 1000;
export const MCP_META_ARRAY_MAX = 50;
export const MCP_META_MAX_BYTES = 8 * 1024;
/** `rt mcp`: progress notifications of one call (bash output, a long grep) at most this often. */
export const MCP_PROGRESS_EVERY_MS = 250;
/** `rt mcp --http`: a client session with no request in progress for this long is closed (the client must initialize again). */
export const MCP_HTTP_SESSION_IDLE_MS = 30 * 60_000;
/** `rt mcp --http`: live client sessions at most; a new one closes the least recently used idle session, or is refused when none is idle. */
export const MCP_HTTP_MAX_SESSIONS = 64;
/** `rt mcp --http`: random bytes in the bearer token made at each start. */
export const MCP_HTTP_TOKEN_BYTES = 32;

/** Model providers: retries of a request that failed before its first streamed part (network error, 429, 5xx). */
export const PROVIDER_MAX_RETRIES = 4;
/** Model providers: first retry delay; each further retry doubles it, up to PROVIDER_RETRY_MAX_DELAY_MS. */
export const PROVIDER_RETRY_BASE_DELAY_MS = 1_000;
export const PROVIDER_RETRY_MAX_DELAY_MS = 30_000;
/** Model providers: a 429 asking to wait longer than this (Retry-After) is reported instead of waited for. */
export const PROVIDER_MAX_RETRY_AFTER_MS = 60_000;
/**
 * Model providers: how long to wait for the first streamed part of an answer. Generous: a
 * local model on a CPU can take minutes to read a long prompt before it writes anything.
 */
export const PROVIDER_FIRST_PART_TIMEOUT_MS = 600_000;
/** Model providers: a stream that sends nothing for this long after it started is given up (a hung server). */
export const PROVIDER_IDLE_TIMEOUT_MS = 120_000;
/** Model providers: `checkReachable` and context-window probes give up after this long. */
export const PROVIDER_PROBE_TIMEOUT_MS = 5_000;
/** Context window assumed for a model nobody reports (small on purpose: compacting early is cheaper than overflowing). */
export const DEFAULT_CONTEXT_WINDOW = 16_384;
/**
 * Ollama: the largest context window rt asks Ollama for (sent as `num_ctx`) when nobody configured
 * one. Ollama allocates the whole KV cache up front, so a model's trained 128k window would take
 * gigabytes on a laptop; configuration (agent.context_window, providers.ollama.context_windows) may go higher.
 */
export const OLLAMA_MAX_CONTEXT_WINDOW = 32_768;
/**
 * Anthropic pauses a long-running turn of server tools (stop reason "pause_turn"); rt sends the
 * paused content back so the model continues, at most this many times in a row, then reports it.
 */
export const AGENT_PAUSED_TURN_CONTINUATIONS = 5;
/** Anthropic requires max_tokens; this is used when neither the call nor the config sets it. */
export const ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS = 8_192;

/** Agent: a tool's output longer than this many characters is cut keeping head and tail; the whole is saved under `.rt/tool-output/`. */
export const AGENT_TOOL_OUTPUT_MAX_CHARS = 20_000;
/**
 * Agent: the characters a pageable tool's output (read, open, grep...) may take. The agent asks the
 * tool for at most this much, so the tool ends at a line with its own continuation hint and
 * nothing is cut out of the middle. 72,000 lets a 2,000-line, 50 KB source file arrive whole
 * with its line numbers (6 characters a line: 51,200 + 12,000), as peers deliver 40-58 KB.
 */
export const AGENT_PAGED_OUTPUT_MAX_CHARS = 72_000;
/**
 * Agent: the share of the model's context window one paged tool output may fill at most (a
 * 32k-token window: 65,536 characters; an 8k one: 16,384), never below AGENT_TOOL_OUTPUT_MAX_CHARS.
 */
export const AGENT_PAGED_OUTPUT_WINDOW_SHARE = 0.5;
/**
 * Cost: a prompt-cache write costs this times the input price when no cache_write price is
 * configured (Anthropic's 5-minute cache: 1.25; the 1-hour cache costs 2, configure it).
 */
export const PROMPT_CACHE_WRITE_PRICE_FACTOR = 1.25;
/** Agent: compaction starts when the context reaches this fraction of the window. */
export const AGENT_COMPACT_THRESHOLD = 0.8;
/** Agent: model requests in one turn (`--max-turns`) unless configured otherwise. */
export const AGENT_DEFAULT_MAX_TURNS = 50;
/** Agent: this many identical consecutive tool calls stop the turn ("loop detected"). */
export const AGENT_LOOP_REPEAT_LIMIT = 3;
/** Subagents (task calls) of one agent running at once; more wait for a free place. */
export const AGENT_MAX_CONCURRENT_SUBAGENTS = 10;
/** How deep subagents may nest by default: 1 = the main agent may start subagents, they may not (agent.subagent_depth). */
export const AGENT_DEFAULT_SUBAGENT_DEPTH = 1;
/** The deepest agent.subagent_depth accepted. */
export const AGENT_MAX_SUBAGENT_DEPTH = 3;
/** Model requests with a non-empty todo list left unchanged after which the next request carries a reminder of it. */
export const AGENT_TODO_REMINDER_AFTER_REQUESTS = 5;
/** Images sent in one model request (the newest ones; providers cap them: Anthropic at 100, and each can weigh megabytes). */
export const AGENT_MAX_IMAGES_PER_REQUEST = 20;
/** Invocations in one batch call. */
export const AGENT_BATCH_MAX_INVOCATIONS = 25;
/** Agent compaction: the most recent part of the conversation kept verbatim, as a fraction of the window. */
export const AGENT_COMPACT_KEEP_FRACTION = 0.25;
/** Agent compaction: recent tool outputs protected from pruning, as a fraction of the window. */
export const AGENT_PRUNE_PROTECT_FRACTION = 0.3;
/** Agent compaction: the transcript sent to the model for the summary, as a fraction of the window. */
export const AGENT_SUMMARY_INPUT_FRACTION = 0.5;
/** Agent compaction: older history smaller than this fraction of the window is not worth a summary request. */
export const AGENT_COMPACT_MIN_GAIN_FRACTION = 0.05;

/** Configuration: a `config.json` (the user's or a project's) or `trusted.json` larger than this is refused, not read. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;
/**
 * Configuration: the longest provider timeout accepted (a day). A Node timer holds at most
 * 2^31 - 1 ms (24.8 days) and runs a longer one after 1 ms, which made every request time out.
 */
export const PROVIDER_TIMEOUT_MAX_MS = 24 * 60 * 60 * 1000;
/** Configuration: objects and arrays nested deeper than this are refused (a real file nests 4 or 5 levels; rt walks it recursively). */
export const CONFIG_MAX_DEPTH = 32;
/** Trust: the stderr line naming a project's ignored keys names at most this many (then "and N more"). */
export const TRUST_NOTICE_MAX_KEYS = 12;
/** Trust: at most this many extension files (.mcp.json, .rt/tools/**, commands, agents) are pinned; more pin as "too many". */
export const TRUST_PIN_MAX_FILES = 2000;
/** Trust: folders below a pinned directory are walked this deep (commands use one level of namespace). */
export const TRUST_PIN_MAX_DEPTH = 8;
/** Trust: a pinned file larger than this is pinned by its size and modification time instead of its content. */
export const TRUST_PIN_HASH_MAX_BYTES = 16 * 1024 * 1024;
/** Trust: the stderr line naming changed extension files names at most this many (then "and N more"). */
export const TRUST_NOTICE_MAX_FILES = 8;
/** Trust: `rt trust` names at most this many pinned files (then "and N more"). */
export const TRUST_PINNED_SHOWN = 40;
/** Undo: rt keeps the newest this many edits of each file in its journal (repeated undos walk back through them). */
export const JOURNAL_KEEP = 50;
/**
 * Undo: the first line of a journal entry file (its signed description: sequence number, hashes,
 * mode, tool, the file's path) is at most this long; the saved bytes follow it.
 */
export const JOURNAL_ENTRY_HEADER_MAX_BYTES = 16 * 1024;

// Code intelligence (symbols, ast_grep, lsp).
/** symbols: files larger than this are not outlined (a parse of more takes seconds). */
export const SYMBOLS_MAX_FILE_BYTES = 8 * 1024 * 1024;
/** symbols: one file's parse gives up after this long. */
export const SYMBOLS_PARSE_TIMEOUT_MS = 10_000;
/** symbols --grep: definitions listed at most. */
export const SYMBOLS_GREP_CAP = 200;
/** symbols --grep: files parsed at most (those whose text contains the name). */
export const SYMBOLS_GREP_MAX_FILES = 2_000;
/** symbols: entries listed for one file at most. */
export const SYMBOLS_FILE_CAP = 2_000;
/** ast_grep: matches listed at most (the count still covers them all). */
export const AST_GREP_DEFAULT_CAP = 200;
/** ast_grep: files searched at most under one path. */
export const AST_GREP_MAX_FILES = 20_000;
/**
 * ast_grep: the longest pattern, and its deepest nesting (levels of its own syntax tree). The
 * binding compiles a pattern recursively in native code and crashes the process at about 20,000
 * levels; real patterns are a line or a few, a few dozen levels deep.
 */
export const AST_GREP_PATTERN_MAX_CHARS = 16 * 1024;
export const AST_GREP_PATTERN_MAX_DEPTH = 500;
/** ast_grep: a meta-variable's text shown after a match is cut at this many characters. */
export const AST_GREP_VAR_MAX_CHARS = 80;
/** lsp: a server unused this long is shut down (`lsp.idle_timeout_ms`). */
export const LSP_IDLE_TIMEOUT_MS = 5 * 60 * 1000;
/** lsp: a request (and a server's start) fails after this long (`lsp.request_timeout_ms`). */
export const LSP_REQUEST_TIMEOUT_MS = 60_000;
/** lsp: diagnostics are taken once the server published nothing new for this long (servers publish syntax, then semantic results). */
export const LSP_DIAGNOSTICS_SETTLE_MS = 250;
/** lsp: shutdown waits this long for a server to exit before killing it. */
export const LSP_SHUTDOWN_GRACE_MS = 2_000;
/** lsp: the end of a server's stderr kept to explain a crash. */
export const LSP_STDERR_KEEP_CHARS = 4_000;
/** lsp: a server that crashed is restarted at most this many times a minute. */
export const LSP_MAX_RESTARTS_PER_MINUTE = 3;
/** lsp: diagnostics of a directory cover at most this many files. */
export const LSP_DIRECTORY_MAX_FILES = 300;
/** lsp: locations and symbols listed at most. */
export const LSP_MAX_RESULTS = 200;
/** lsp: a hover's text is cut at this many characters. */
export const LSP_HOVER_MAX_CHARS = 4_000;
/** Edit diagnostics: at most this many new errors are added to an edit's result. */
export const EDIT_DIAGNOSTICS_MAX_LINES = 10;
/** Edit diagnostics: how long the first edit of a file (in the agent, its check in the background) waits for its
 * language server to start (it goes on starting for the next); `lsp.edit_diagnostics_start_timeout_ms` sets another. */
export const EDIT_DIAGNOSTICS_START_TIMEOUT_MS = 10_000;
/** Edit diagnostics: how long an edit waits for the server's diagnostics of the new content (the CLI, MCP, ACP). */
export const EDIT_DIAGNOSTICS_TIMEOUT_MS = 5_000;
/**
 * lsp: a document that had no diagnostics, changed since, is taken to still have none once the
 * server published nothing (for any document) for this long: typescript-language-server does not
 * publish diagnostics that stay empty. The agent's edits do not wait for it (their check runs in
 * the background, EDIT_CHECK_QUIET_MS); a check that follows another of the same file reuses its errors.
 */
export const LSP_UNCHANGED_QUIET_MS = 1_500;
/**
 * Edit diagnostics in the background (the agent): LSP_UNCHANGED_QUIET_MS and LSP_DIAGNOSTICS_SETTLE_MS
 * for a check, longer since only the end of the turn waits for it. On a busy 2-core machine
 * typescript-language-server published a new error more than 1.5 s after the change, and after the
 * change published the old text's empty list twice, the error coming more than 250 ms after them:
 * the shorter silences took either for "no errors".
 */
export const EDIT_CHECK_QUIET_MS = 4_000;
/** Edit diagnostics in the background: LSP_DIAGNOSTICS_SETTLE_MS for a check (see EDIT_CHECK_QUIET_MS). */
export const EDIT_CHECK_SETTLE_MS = 1_000;
// Extensions (custom tools, MCP servers, hooks, custom commands; src/extensions/).
/** Extensions: a tool definition or command file larger than this is refused, not read. */
export const EXTENSION_FILE_MAX_BYTES = 256 * 1024;
/** Extensions: at most this many files of one directory (.rt/tools, a commands directory) are read. */
export const EXTENSION_DIR_MAX_FILES = 500;
/** Custom tools: the timeout when a definition gives none, in seconds. */
export const CUSTOM_TOOL_DEFAULT_TIMEOUT_S = 60;
/** MCP client: how long connecting to a server (start, initialize, tools/list) may take, in ms. */
export const MCP_CLIENT_CONNECT_TIMEOUT_MS = 15_000;
/** MCP client: how long `rt mcp login` waits for the browser to come back with an authorization, in ms. */
export const MCP_OAUTH_LOGIN_TIMEOUT_MS = 5 * 60_000;
/** MCP client: the most a server's own `startup_timeout_sec` may set that bound to, in seconds. */
export const MCP_CLIENT_CONNECT_TIMEOUT_MAX_S = 600;
/** MCP client: how long one tools/call may take, in ms. */
export const MCP_CLIENT_CALL_TIMEOUT_MS = 120_000;
/** MCP client: a tool result's text over this many bytes keeps head and tail (the whole saved under .rt/shell/). */
export const MCP_CLIENT_OUTPUT_MAX_BYTES = 50 * 1024;
/** MCP client: above this many MCP tools the agent gets mcp_search instead of every tool (configurable: mcp.lazy_above). */
export const MCP_LAZY_ABOVE_TOOLS = 25;
/** MCP client: mcp_search returns at most this many tools. */
export const MCP_SEARCH_MAX_RESULTS = 8;
/** Warming a long-running process (agent, rt mcp): directory entries sampled for the workspace's commonest languages. */
export const WARM_SAMPLE_ENTRIES = 400;
/** Warming: grammars (and native syntax checks) loaded ahead, for this many of the commonest languages. */
export const WARM_LANGUAGES = 2;
/**
 * Warming: the warm-up's edit works on a copy of a workspace file of each of those languages up to this size
 * (a real file exercises the grammar and the edit as a real first edit does; a larger one costs more than it warms).
 */
export const WARM_EDIT_SAMPLE_MAX_BYTES = 64 * 1024;
/** Agent: tool_search returns at most this many tools. */
export const TOOL_SEARCH_MAX_RESULTS = 5;
/** Hooks: a hook command's timeout when its configuration gives none, in seconds (Claude Code's default). */
export const HOOK_DEFAULT_TIMEOUT_S = 60;
/** Hooks: a hook's own `timeout` is cut to this many seconds (Claude Code's ceiling for a command hook). */
export const HOOK_TIMEOUT_MAX_S = 600;
/** Custom slash commands: an `@path` in a command's body attaches a file of at most this many bytes (a larger one is left as written). */
export const SLASH_COMMAND_FILE_MAX_BYTES = 256 * 1024;
/** Custom slash commands: the output of a `!` command put into the prompt is cut to this many characters. */
export const SLASH_COMMAND_OUTPUT_MAX_CHARS = 30_000;
/** Hooks: at most this much of a hook's stdout and of its stderr is read. */
export const HOOK_OUTPUT_MAX_BYTES = 64 * 1024;
/** Hooks: a Stop hook can send the model back to work at most this many times in one turn. */
export const HOOK_STOP_MAX_CONTINUES = 3;
// ---- notebooks (read of .ipynb)
/** Characters of one cell output read shows; the rest is cut with a note. */
export const NOTEBOOK_OUTPUT_MAX_CHARS = 4000;
/**
 * Notebooks (read, notebook_edit): the most JSON objects and arrays, and the deepest nesting, rt
 * parses (checked in one pass before JSON.parse builds anything). A real notebook has tens per
 * cell and a dozen levels; 32 million `{}` would take about 3 GB.
 */
export const NOTEBOOK_MAX_JSON_CONTAINERS = 2_000_000;
export const NOTEBOOK_MAX_JSON_DEPTH = 256;
/** Image outputs one read of a notebook sends a vision model, at most. */
export const NOTEBOOK_MAX_IMAGES = 10;

// ---- web (web_fetch, web_search)
/** A page fetched this recently is served from the cache. */
export const WEB_CACHE_TTL_MS = 15 * 60 * 1000;
/** web_fetch downloads at most this much (after decompression). */
export const WEB_FETCH_MAX_BYTES = 10 * 1024 * 1024;
/** The whole fetch (redirects included) must end within this long (web.fetch_timeout_ms overrides it). */
export const WEB_FETCH_TIMEOUT_MS = 30_000;
/** The page's Markdown is cut here before the model (or the caller) sees it. */
export const WEB_FETCH_MAX_MARKDOWN_BYTES = 100 * 1024;
/** Quotes from a page in web_fetch's answer stay this short. */
export const WEB_FETCH_QUOTE_MAX_CHARS = 125;
/** web_search results by default, and at most. */
export const WEB_SEARCH_DEFAULT_RESULTS = 8;
export const WEB_SEARCH_MAX_RESULTS = 20;
/** A search backend must answer within this long. */
export const WEB_SEARCH_TIMEOUT_MS = 20_000;

// ---- images and PDFs through read
/** read opens an image or a PDF up to this size (they are decoded whole, in memory). */
export const READ_BINARY_MAX_BYTES = 50 * 1024 * 1024;
/**
 * Images (read, a notebook's outputs, PDF pages as images): the most pixels of one image rt
 * decodes. A larger one is refused from its header, before decoding (a 1 MB PNG can hold
 * 16383 x 16383 pixels, 800 MB decoded). Within it an image is decoded strip by strip into its
 * scaled-down copy, one image at a time in the process, so memory stays at about 150 MB.
 */
export const IMAGE_MAX_PIXELS = 64 * 1000 * 1000;
/** Images: one decode (and scaling) is stopped after this many seconds. */
export const IMAGE_DECODE_TIMEOUT_S = 20;
/**
 * PDFs: the most one stream may inflate to, and all the file's streams together. pdf.js inflates
 * a stream whole in memory; a 1.3 MB file can inflate to more than a gigabyte. Both are checked
 * (by inflating and counting, nothing kept) before pdf.js opens the file.
 */
export const PDF_STREAM_MAX_INFLATED_BYTES = 64 * 1024 * 1024;
export const PDF_MAX_INFLATED_BYTES = 512 * 1024 * 1024;
/**
 * PDFs: pdf.js runs in a worker thread, ended when one request (opening the file, one page's text,
 * one page's image) takes longer than PDF_PAGE_TIMEOUT_S, or the whole read longer than
 * PDF_READ_TIMEOUT_S; the pages read before it are returned, with a note naming the page. A 3 KB
 * file of forms nested 20 deep, each drawing the next twice, holds pdf.js for minutes; ordinary
 * pages take well under a second. 20 pages of 3 s each fit the read's budget.
 */
export const PDF_PAGE_TIMEOUT_S = 20;
export const PDF_READ_TIMEOUT_S = 60;
/**
 * A pdf.js worker that finished a read waits this long for the next one, then is ended: loading
 * pdf.js into a new worker costs about a second of CPU, which a run of reads pays once.
 */
export const PDF_WORKER_IDLE_S = 30;
/** Pages of a PDF one read returns at most (Claude Code's Read takes 20 pages a call). */
export const PDF_MAX_PAGES_PER_READ = 20;
/** Text of the pages read returns, at most (the same cap as a text file's window). */
export const PDF_TEXT_MAX_BYTES = READ_MAX_OUTPUT_BYTES;
/** as_images renders pages at this many pixels on the long edge before the provider's own downscale. */
export const PDF_RENDER_LONG_EDGE = 1568;
/**
 * as_images stops rendering once the pages' images reach this many bytes (Anthropic takes 32 MB
 * a request; an MCP client's transport may choke on one huge message): the note says where to go on.
 */
export const PDF_IMAGES_MAX_BYTES = 10 * 1024 * 1024;
/**
 * Anthropic: an image's long edge above 1568 px is scaled down by the API anyway,
 * and requests with more than 20 images refuse any edge above 2000 px; the API
 * refuses base64 data over 5 MB, i.e. 3.75 MB of image bytes.
 */
export const ANTHROPIC_IMAGE_MAX_EDGE = 1568;
export const ANTHROPIC_IMAGE_MAX_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);
/** OpenAI (detail "high"): the image is first scaled to fit a 2048 x 2048 square; 20 MB per image. */
export const OPENAI_IMAGE_MAX_EDGE = 2048;
export const OPENAI_IMAGE_MAX_BYTES = 20 * 1024 * 1024;
/**
 * Ollama documents no limit (each model's vision encoder resizes what it gets);
 * rt keeps requests small with Anthropic's 1568 px, and a few MB.
 */
export const OLLAMA_IMAGE_MAX_EDGE = 1568;
export const OLLAMA_IMAGE_MAX_BYTES = 4 * 1024 * 1024;
/** An image's tokens when the provider has not counted them: Anthropic's estimate, width x height / 750. */
export const IMAGE_PIXELS_PER_TOKEN = 750;
// ---- the full-screen UI (rt, rt chat on a terminal)
/** Lines of a tool result shown when collapsed; the rest waits for Ctrl-O. */
export const TUI_RESULT_PREVIEW_LINES = 4;
/** Lines of a diff shown when collapsed. */
export const TUI_DIFF_PREVIEW_LINES = 12;
/** Lines of reasoning shown when collapsed. */
export const TUI_REASONING_PREVIEW_LINES = 3;
/** Even expanded, a result shows at most this many lines (the whole of it is in the session log). */
export const TUI_RESULT_MAX_LINES = 400;
/** Prompts kept per project; older ones are dropped when the file is rewritten. */
export const TUI_PROMPT_HISTORY_MAX = 500;
/** A prompt longer than this is not kept (a pasted file is not worth recalling with ↑). */
export const TUI_PROMPT_HISTORY_ENTRY_MAX_CHARS = 10_000;
/** Lines of a diff or a command shown in an approval, at most. */
export const TUI_APPROVAL_PREVIEW_LINES = 12;
/** Rows of the prompt shown at most; a longer prompt scrolls with its cursor. */
export const TUI_INPUT_MAX_ROWS = 8;
/** Completion candidates listed at most. */
export const TUI_COMPLETION_ROWS = 6;
/** Todo items listed at most (the rest are counted). */
export const TUI_TODO_ROWS = 6;
/** Redraws at most this often while the model streams. */
export const TUI_FRAME_MS = 33;
/** Ctrl-C twice within this time at an empty prompt quits. */
export const TUI_QUIT_WINDOW_MS = 2000;
/** Lines the mouse wheel scrolls per notch. */
export const TUI_WHEEL_LINES = 3;
/** `#NOTE` at the prompt: a memory note is at most this long; the memory file it is appended to at most this large. */
export const MEMORY_NOTE_MAX_CHARS = 2_000;
export const MEMORY_FILE_MAX_BYTES = 1024 * 1024;
/** A resumed session in the full-screen UI: its conversation is shown again from this many prompts back. */
export const TUI_RESUME_PROMPTS = 50;
/** A resumed session in the line faces (rt chat --plain, rt run on a terminal): this many prompts are shown again. */
export const LINE_RESUME_PROMPTS = 3;

// The `local` provider (GGUF models in-process with node-llama-cpp).
/** Digits an integer or number may have in a local model's constrained tool call (no exponents). */
export const LOCAL_GRAMMAR_MAX_DIGITS = 15;
/** The smallest context a local model is loaded with; less free memory than this needs is an error. */
export const LOCAL_MIN_CONTEXT = 2048;
/** The largest context rt asks for (node-llama-cpp picks less when free memory is short). */
export const LOCAL_MAX_CONTEXT = 32_768;
/** Output tokens of one local model turn when the caller sets none. */
export const LOCAL_DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** A model download that receives nothing for this long stops, with the manual alternative. */
export const LOCAL_DOWNLOAD_STALL_MS = 30_000;
/** Connecting to the download host (DNS, TCP, TLS, the response's headers) within this, or stop. */
export const LOCAL_DOWNLOAD_CONNECT_MS = 20_000;
/** Machine memory (bytes) from which the default local model is the larger catalogue entry. */
export const LOCAL_LARGE_MODEL_MIN_MEMORY = 16 * 1024 ** 3;
/** Machine memory (bytes) from which the default is the middle catalogue entry. */
export const LOCAL_MEDIUM_MODEL_MIN_MEMORY = 8 * 1024 ** 3;

/** An edit lock file still empty this long after it was made is a dead process's (its creator writes its pid at once). */
export const LOCK_EMPTY_STALE_MS = 2_000;
