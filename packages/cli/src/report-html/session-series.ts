import {
  type CacheRules,
  type CacheState,
  type CompactionMode,
  evolve,
  initialCacheState,
  initialState,
  type SessionState,
  type StoredEvent,
  stepCache,
} from "@palimpsest/core";
import { promptMessages } from "@palimpsest/eval";
import type { CompactionPoint, ReportSeries, RequestPoint } from "./report-data.ts";
import { seriesFigures } from "./series-figures.ts";

/** Supersede modes the report does not count as compactions: insertion trims and retractions. */
const NOT_COMPACTIONS: ReadonlySet<CompactionMode> = new Set(["trim", "retract"]);

/** The requests, compactions and figures of one session's log, requests numbered from 1. */
export type SessionSeries = Omit<ReportSeries, "label">;

/**
 * Folds one session's log into report points. Each assistant message is a provider request whose prompt is
 * the view just before it (as replay counts them), run through the cache model with `rules`; a turn's real
 * usage goes to its last request; every supersede but an insertion trim and a retraction (a `retract`
 * rewrite: withdrawn on purpose, or an adapter's bookkeeping) is a compaction.
 */
export function sessionSeries(events: Iterable<StoredEvent>, rules: CacheRules): SessionSeries {
  const requests: RequestPoint[] = [];
  const compactions: CompactionPoint[] = [];
  let state: SessionState | undefined;
  let cache: CacheState = initialCacheState;
  for (const event of events) {
    state ??= initialState(event.sessionId);
    if (event.type === "message.appended" && event.data.message.role === "assistant") {
      const step = stepCache(
        cache,
        { messages: promptMessages(state.live), completionTokens: event.data.tokens },
        rules,
      );
      cache = step.state;
      const { promptTokens, cachedTokens, cacheWriteTokens, cacheBreak } = step.estimate;
      requests.push({
        x: requests.length + 1,
        viewTokens: promptTokens,
        model: { cachedTokens, cacheWriteTokens, cacheBreak },
        ...(requests.length === 0 ? { firstOfSession: true as const } : {}),
      });
    } else if (event.type === "turn.completed") {
      const last = requests.at(-1);
      const usage = event.data.usage;
      if (last !== undefined && last.real === undefined && usage?.promptTokens !== undefined) {
        last.real = {
          promptTokens: usage.promptTokens,
          cacheReadTokens: usage.cacheReadTokens ?? 0,
          cacheWriteTokens: usage.cacheWriteTokens ?? 0,
        };
      }
    } else if (event.type === "messages.superseded" && !NOT_COMPACTIONS.has(event.data.mode)) {
      const { mode, stats } = event.data;
      compactions.push({
        x: requests.length + 0.5,
        seq: event.seq,
        mode,
        tokensBefore: stats.tokensBefore,
        tokensAfter: stats.tokensAfter,
        promptBefore: stats.tokensBefore,
        promptAfter: stats.tokensAfter,
      });
    }
    evolve(state, event);
  }
  return { requests, compactions, figures: seriesFigures(requests, compactions) };
}
