// pdf.js's time budgets: a crafted page (forms nested 24 deep, each drawing the next twice: a
// few kilobytes that would hold pdf.js for hours) is stopped at the page budget, in a worker thread
// that rt ends, while rt's own thread keeps running its timers; the pages before it are returned
// with a note naming it, the read's own budget stops a read of slow pages, and no worker thread is
// left behind (the process's thread count, from /proc, returns to what it was).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { readPdf } from "../../src/tools/shared/readMedia.ts";
import type { ImageInput } from "../../src/tools/types.ts";
import { nestedFormsPdf } from "./bombs.ts";

const VISION: ImageInput = {
  vision: true,
  limits: { maxEdge: 1568, maxBytes: 3_932_160, formats: ["image/png", "image/jpeg"] },
};
const BOMB = { depth: 24 };

/**
 * This process's threads named "node", as the kernel lists them: the main thread, V8's and
 * libuv's helpers, and each worker thread with its own. Native libraries' pools are left out
 * (sharp's "libvips worker" comes and goes on its own; the canvas's "tokio-rt-worker" stays).
 */
function threads(): number {
  const tasks = fs.readdirSync("/proc/self/task");
  return tasks.filter((t) => {
    try {
      return fs.readFileSync(`/proc/self/task/${t}/comm`, "utf8").trim() === "node";
    } catch {
      return false; // ended meanwhile
    }
  }).length;
}

/** Waits up to `ms` for the thread count to come back to `want`; gives the last count seen. */
async function threadsBackTo(want: number, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let now = threads();
  while (now !== want && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    now = threads();
  }
  return now;
}

/** Runs `fn` while a 20 ms timer ticks on rt's thread; gives its result and the longest gap between ticks. */
async function ticking<T>(fn: () => Promise<T>): Promise<{ value: T; longestGapMs: number; seconds: number }> {
  let last = Date.now();
  let longestGapMs = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
  }, 20);
  const start = Date.now();
  try {
    const value = await fn();
    return { value, longestGapMs: Math.max(longestGapMs, Date.now() - last), seconds: (Date.now() - start) / 1000 };
  } finally {
    clearInterval(timer);
  }
}

const root = tempTree({});
fs.writeFileSync(`${root}/plain.pdf`, nestedFormsPdf(["Only page"]));
fs.writeFileSync(`${root}/mixed.pdf`, nestedFormsPdf(["Alpha", "Bravo", "Charlie", BOMB, "Echo", "Foxtrot"]));
fs.writeFileSync(`${root}/first.pdf`, nestedFormsPdf([BOMB, "Bravo"]));
// Slow but finite pages (2^11 forms drawn each): the read's budget, not a page's, runs out.
fs.writeFileSync(`${root}/slow.pdf`, nestedFormsPdf(["Alpha", ...Array.from({ length: 8 }, () => ({ depth: 12 }))]));
const w = createWorkspace({ root, env: {} });
const read = (name: string, args: { pages?: string; as_images?: boolean }, pageSeconds: number, readSeconds = 60) =>
  readPdf(w, w.resolveFile(name), args, () => Promise.resolve(VISION), {
    time: { pageSeconds, readSeconds, idleSeconds: 60 },
  });

// The process's own threads without a worker: what is left once every worker is gone. A first
// read (as images, its worker ended at once) starts whatever threads the process keeps for good
// (libuv's pool for the budget check, sharp's for fitting the page images) before they are counted.
await readPdf(w, w.resolveFile("plain.pdf"), { as_images: true }, () => Promise.resolve(VISION), {
  time: { pageSeconds: 60, readSeconds: 60, idleSeconds: 0 },
});
let baseline = threads();
for (let steady = 0; steady < 10; await new Promise((r) => setTimeout(r, 100))) {
  const now = threads();
  steady = now === baseline ? steady + 1 : 0;
  baseline = now;
}

test("a page that holds pdf.js is stopped at the page budget: the pages before it, a note naming it", async () => {
  // A first read loads pdf.js into a worker, kept for the next read: the timed read below is pdf.js's work only.
  const warm = await read("plain.pdf", {}, 60);
  assert.match(warm.output, /--- page 1 ---\nOnly page/);
  assert.ok(threads() > baseline, "the worker kept for the next read has threads of its own");
  const { value: r, longestGapMs, seconds } = await ticking(() => read("mixed.pdf", {}, 2));
  assert.equal(r.success, true, r.output);
  assert.match(r.output, /^mixed\.pdf: PDF, 6 pages; pages 1-6\n--- page 1 ---\nAlpha\n--- page 2 ---\nBravo\n/);
  assert.match(r.output, /--- page 3 ---\nCharlie\n/);
  assert.doesNotMatch(r.output, /Echo/);
  assert.match(
    r.output,
    /\n\.\.\. \(page 4 took longer than 2 s in pdf\.js, rt's budget for one PDF page; it was stopped; pages 1-3 read; ask for pages: "5-6" next\)$/,
  );
  assert.deepEqual([r.pages, r.truncated, r.stopped_at_page], [[1, 2, 3], true, 4]);
  // Three small pages and the budget: well within the budget plus the time to start, not the hours the page needs.
  assert.ok(seconds < 2 + 10, `the read took ${seconds} s`);
  assert.ok(longestGapMs < 1000, `rt's thread stalled ${longestGapMs} ms while pdf.js ran`);
  assert.equal(await threadsBackTo(baseline, 5000), baseline, "the stopped worker's threads are gone");
  // The pages after it read with a new worker.
  const rest = await read("mixed.pdf", { pages: "5-6" }, 60);
  assert.match(rest.output, /--- page 5 ---\nEcho\n--- page 6 ---\nFoxtrot$/);
});

test("as images: the first page over the budget fails the read; a later one ends it with the pages rendered", async () => {
  const { value: failure, longestGapMs } = await ticking(() =>
    read("first.pdf", { as_images: true }, 2).then(
      () => undefined,
      (e: Error) => e,
    ),
  );
  assert.ok(failure, "the read failed");
  assert.equal(
    failure.message,
    `first.pdf: page 1 took longer than 2 s in pdf.js, rt's budget for one PDF page; it was stopped; no page was read (ask for pages: "2" to read the others)`,
  );
  assert.ok(longestGapMs < 1000, `rt's thread stalled ${longestGapMs} ms while pdf.js rendered`);
  assert.equal(await threadsBackTo(baseline, 5000), baseline, "the stopped worker's threads are gone");
  const next = await read("first.pdf", { as_images: true, pages: "2" }, 60);
  // Past a page rendered: that page's image, the note naming the page stopped and the one after it.
  const some = await read("mixed.pdf", { as_images: true, pages: "3-5" }, 2);
  assert.deepEqual([some.pages, (some.images as unknown[]).length, some.stopped_at_page], [[3], 1, 4]);
  assert.match(
    some.output,
    /^mixed\.pdf: PDF, 6 pages; pages 3-5, as 1 image \(one a page, in order: pages 3\); page 4 took longer than 2 s in pdf\.js, rt's budget for one PDF page; it was stopped; page 3 read; ask for pages: "5" next$/,
  );
  assert.equal(await threadsBackTo(baseline, 5000), baseline, "the stopped worker's threads are gone");
  assert.deepEqual(next.pages, [2]);
  assert.equal((next.images as unknown[]).length, 1);
});

test("the read's own budget stops a run of slow pages, and the page it stopped at is offered again", async () => {
  await read("plain.pdf", {}, 60);
  const r = await read("slow.pdf", {}, 60, 3);
  assert.equal(r.success, true, r.output);
  const shown = r.pages as number[];
  assert.ok(shown.length >= 1 && shown.length < 9, `pages read: ${shown}`);
  const stop = shown.length + 1;
  assert.match(
    r.output,
    new RegExp(
      `\\n\\.\\.\\. \\(the read took longer than 3 s, rt's budget for reading one PDF; pdf\\.js was stopped at page ${stop}; pages? [\\d-]+ read; ask for pages: "${stop}(-9)?" next\\)$`,
    ),
  );
  assert.equal(await threadsBackTo(baseline, 5000), baseline, "the stopped worker's threads are gone");
});

test("a worker that finished a read is ended after its idle budget", async () => {
  const r = await readPdf(w, w.resolveFile("plain.pdf"), {}, undefined, {
    time: { pageSeconds: 60, readSeconds: 60, idleSeconds: 1 },
  });
  assert.match(r.output, /Only page/);
  assert.ok(threads() > baseline, "the worker is kept for a while");
  assert.equal(await threadsBackTo(baseline, 5000), baseline, "the idle worker's threads are gone");
});
