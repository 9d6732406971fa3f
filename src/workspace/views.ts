// The last window shown of each file, for `scroll` (seed 000 §4.2.2).
// Kept in `.rt/view.json`; read once per process, written on change.
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

export class ViewStore {
  private data: ViewFile | undefined;

  constructor(private state: StateStore) {}

  private loaded(): ViewFile {
    if (!this.data) {
      const stored = this.state.readJson<ViewFile>("view.json");
      this.data = stored && stored.version === 1 && stored.files ? stored : { version: 1, files: {} };
    }
    return this.data;
  }

  get(rel: string): ViewWindow | undefined {
    return this.loaded().files[rel];
  }

  set(rel: string, w: ViewWindow): void {
    const d = this.loaded();
    d.files[rel] = w;
    this.state.writeJsonBestEffort(d, "view.json");
  }
}
