// Every window size, cap and timeout in one place, each with its default from the seeds.

/** `open`: window height (seed 000 §4.2.1). */
export const OPEN_WINDOW = 100;
/** `open PATH:START-END`: largest explicit range shown. */
export const OPEN_MAX_RANGE = 200;
/** `scroll`: chunk size and overlap between consecutive windows (seed 000 §4.2.2). */
export const SCROLL_CHUNK = 100;
export const SCROLL_OVERLAP = 2;

/** `read`: default number of lines (seed 002). */
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
/** `ls`: entries listed; tree depth by default (seed 003). */
export const LS_MAX_ENTRIES = 200;
export const LS_DEFAULT_DEPTH = 3;

/** Binary detection: bytes sampled from the start of a file. */
export const BINARY_SAMPLE_BYTES = 8 * 1024;

/** Files at least this large are read through the cached line-offset index, never whole. */
export const LARGE_FILE_BYTES = 8 * 1024 * 1024;
/** Line-offset index: one checkpoint every this many lines. */
export const INDEX_CHECKPOINT_LINES = 1024;
/** Line-offset index: bytes read per chunk while scanning (bounds peak memory). */
export const INDEX_SCAN_CHUNK = 16 * 1024 * 1024;

/** Persistent line IDs are kept for files up to this size. */
export const LINE_ID_MAX_BYTES = 64 * 1024 * 1024;
