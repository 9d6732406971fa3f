// The last window shown of each file, for `scroll`.
// Kept in `.rt/view.json`; read once per process, written on change. What is
// read back is checked (rt's MAC, then the shape): a bad entry is dropped.
import type { StateStore } from "./state.js";

export interface ViewWindow {
  start: number;
  end: number;
  chunk: number;
  overlap: number;
}

interface ViewFile {
  version: 1;
  files: Record<string, ViewWindow>;
}

/** Windows rt stores are SCROLL_CHUNK lines; anything far larger is not rt's. */
const MAX_CHUNK = 10_000;

const count = (n: unknown, min: number): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= min;

function validWindow(w: unknown): w is ViewWindow {
  if (w === null || typeof w !== "object") return false;
  const v = w as Record<string, unknown>;
  return (
    count(v.start, 1) &&
    count(v.end, 0) &&
    count(v.chunk, 1) &&
    count(v.overlap, 0) &&
    (v.end as number) + 1 >= (v.start as number) &&
    (v.chunk as number) <= MAX_CHUNK &&
    (v.overlap as number) < (v.chunk as number)
  );
}

/** Only the well-formed entries of a stored view file. */
function validated(stored: ViewFile | undefined): ViewFile {
  const out: ViewFile = { version: 1, files: Object.create(null) as Record<string, ViewWindow> };
  if (
    !stored ||
    stored.version !== 1 ||
    stored.files === null ||
    typeof stored.files !== "object" ||
    Array.isArray(stored.files)
  )
    return out;
  for (const [rel, w] of Object.entries(stored.files))
    if (validWindow(w)) out.files[rel] = { start: w.start, end: w.end, chunk: w.chunk, overlap: w.overlap };
  return out;
}

export class ViewStore {
  private data: ViewFile | undefined;

  constructor(private state: StateStore) {}

  private loaded(): ViewFile {
    if (!this.data) this.data = validated(this.state.readJson<ViewFile>("view.json"));
    return this.data;
  }

  get(rel: string): ViewWindow | undefined {
    const files = this.loaded().files;
    return Object.hasOwn(files, rel) ? files[rel] : undefined;
  }

  set(rel: string, w: ViewWindow): void {
    const d = this.loaded();
    d.files[rel] = w;
    this.state.writeJsonBestEffort(d, "view.json");
  }
}
