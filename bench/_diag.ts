import { selectSpan, stablePrefixEnd, tailBudget } from "@palimpsest/core";
import { openPalimpsest, PrecompactionScheduler, profileNamed, replaySession, type Session } from "@palimpsest/store";
import { realSessions } from "../test/support/real-transcripts.ts";
const file = process.argv[2] ?? "";
const source = realSessions(file).filter((s) => s.parentExternalId === undefined)[0];
if (!source) throw new Error("none");
const runtime = await openPalimpsest({ url: ":memory:" });
const profile = profileNamed("anthropic");
const common = { policy: "summary" as const, profile, contextWindow: 64_000 };
let current: Session | undefined;
class S extends PrecompactionScheduler {
  override onTurnCompleted(session: Session) { current = session; super.onTurnCompleted(session); }
}
const scheduler = new S({ candidates: runtime.store, compaction: common, precompact: { debounceMs: 0 } });
let last = "";
scheduler.events$.subscribe((e) => { if (e.type !== "job") console.log(e.type, e.type === "hit" ? e.deltaMessages : e.reason, "| last job view:", last); });
await replaySession(runtime, source, { ...common, precompact: scheduler, onRequest: () => {
  const s = current; if (!s) return;
  const view = s.state.live;
  const span = selectSpan(view, tailBudget(64_000, profile.tail), s.state.compactions ?? 0);
  const end = stablePrefixEnd(view, span, s.state.lastSeq);
  const why = end >= span.tailStart ? "tail" : span.pinned.has(end) ? `pinned(${view[end]?.message.role})` : "seq/call";
  last = `view ${view.length} head ${span.headEnd} tail ${span.tailStart} pinned [${[...span.pinned].join(",")}] end ${end} (${why}) live ${s.state.liveTokens}`;
}});
scheduler.dispose(); await runtime.close();
