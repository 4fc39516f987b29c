/**
 * `palimpsest sessions` with many sessions: the old path (every catalogue row, every session resumed)
 * against the new one (one indexed page of the catalogue, only its sessions loaded), the first page and a
 * page from the middle, as the catalogue grows tenfold. Same store, same run.
 */
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { sessionRows } from "../packages/cli/src/session-rows.ts";
import { median, progress, timed } from "./stats.ts";
import { messageEvents, STARTED } from "./workload.ts";

/** Median times of the old and new listing at one catalogue size. */
export interface SessionListingResult {
  engine: "postgres" | "sqlite";
  sessions: number;
  /** Rows the new path prints per page (`--limit`, the default 50). */
  pageSize: number;
  /** Every session resumed, as `sessions` did before paging. */
  oldMs: number;
  /** The first page (`sessions`). */
  firstPageMs: number;
  /** The page after a cursor in the middle of the catalogue (`sessions --after …`). */
  middlePageMs: number;
}

const PAGE = 50;
const MESSAGES_PER_SESSION = 8;

/** What the `sessions` command computed per session before it paged (kept here as the baseline). */
async function oldListing(store: Awaited<ReturnType<typeof openEventStore>>): Promise<number> {
  const runtime = new Palimpsest({ store, counterFor: createTokenCounter });
  let rows = 0;
  for (const summary of await runtime.sessions()) {
    const r = (await runtime.resume(summary.sessionId)).resumeState();
    if (r.liveMessages >= 0) rows++;
  }
  return rows;
}

/** The cursor just after the first `count` sessions of the catalogue, paged there 1,000 at a time. */
export async function cursorAt(
  store: Awaited<ReturnType<typeof openEventStore>>,
  count: number,
): Promise<string | undefined> {
  let after: string | undefined;
  for (let left = count; left > 0; left -= 1_000) {
    const page = await store.listSessionPage({
      limit: Math.min(left, 1_000),
      ...(after === undefined ? {} : { after }),
    });
    after = page.next ?? undefined;
  }
  return after;
}

/** Grows the catalogue at `url` to each size in turn and times both listings at each. */
export async function runSessionListingBench(
  engine: "postgres" | "sqlite",
  url: string,
  quick: boolean,
): Promise<SessionListingResult[]> {
  const sizes = quick ? [200, 2_000] : [600, 6_000];
  const reps = quick ? 3 : 5;
  const store = await openEventStore(url);
  const results: SessionListingResult[] = [];
  try {
    let made = 0;
    for (const size of sizes) {
      progress(`session listing ${engine}: writing sessions up to ${size}`);
      for (; made < size; made++) {
        const events = [STARTED, ...messageEvents(0, MESSAGES_PER_SESSION)];
        await store.append(`listing-${String(made).padStart(6, "0")}`, events, { expectedVersion: "no-stream" });
      }
      const middle = await cursorAt(store, Math.floor(size / 2));
      const old: number[] = [];
      const first: number[] = [];
      const mid: number[] = [];
      for (let rep = -1; rep < reps; rep++) {
        const o = await timed(() => oldListing(store));
        const f = await timed(() => sessionRows(store, { limit: PAGE }));
        const m = await timed(() =>
          sessionRows(store, { limit: PAGE, ...(middle === undefined ? {} : { after: middle }) }),
        );
        if (o.value !== size || f.value.sessions.length !== PAGE || m.value.sessions.length !== PAGE) {
          throw new Error(`session listing: expected ${size} sessions and full pages`);
        }
        if (rep < 0) continue; // warmup
        old.push(o.ms);
        first.push(f.ms);
        mid.push(m.ms);
      }
      const result = {
        engine,
        sessions: size,
        pageSize: PAGE,
        oldMs: median(old),
        firstPageMs: median(first),
        middlePageMs: median(mid),
      };
      progress(
        `session listing ${engine} ${size}: old ${result.oldMs.toFixed(0)} ms, page ${result.firstPageMs.toFixed(1)} ms`,
      );
      results.push(result);
    }
  } finally {
    await store.close();
  }
  return results;
}
