import { type SpanSelection, selectSpan } from "../compaction/span-selection.ts";
import { stripSummaryNote } from "../compaction/summary-note.ts";
import { messageText } from "../messages/message.ts";
import type { LiveEntry } from "../session/session-state.ts";
import { type Exchange, exchangeAt, isComplete, liveMarker, microCursor, summaryIndices } from "./exchanges.ts";
import type { MicroDefragPlan, MicroInput, MicroNoPlan, MicroPlan } from "./micro-plan-types.ts";

/**
 * Plans one micro pass, pure. Off or off-cadence: none. A marker over the defrag limit (and not already
 * found undefraggable) is defragged. Otherwise the oldest complete exchange after the cursor, wholly
 * between the protected head and tail, is absorbed with the marker; exchanges out of attempts are passed
 * over (left verbatim). User messages are never targets, nor is a batch summary. The cost: the middle never
 * gets smaller than its user messages plus one marker (and any poison exchange); only a batch compaction goes lower.
 */
export function planMicro(input: MicroInput): MicroPlan {
  const { settings, turnsCompleted } = input;
  if (!settings.enabled) return none("micro-compaction is off");
  if (input.sessionEnabled === false) return none("micro-compaction is off for this session");
  if (turnsCompleted === 0 || turnsCompleted % settings.everyNTurns !== 0) {
    return none(`turn ${turnsCompleted} is not a multiple of ${settings.everyNTurns}`);
  }
  const span = selectSpan(input.view, input.tailTokens, input.batchCompactions);
  const summaries = summaryIndices(input.view, input.liveSummaries);
  return planDefrag(input, span, summaries) ?? planAbsorb(input, span, summaries);
}

function planDefrag(input: MicroInput, span: SpanSelection, summaries: readonly number[]): MicroDefragPlan | undefined {
  const marker = liveMarker(input.view, summaries);
  const limit = input.settings.defragLimitTokens;
  if (marker === undefined || marker.entry.tokens <= limit || marker.index >= span.tailStart) return undefined;
  if (input.failures.staleDefrags.includes(marker.entry.message.id)) return undefined;
  return {
    kind: "defrag",
    marker: marker.entry,
    summary: stripSummaryNote(messageText(marker.entry.message)),
    maxSummaryTokens: Math.max(1, Math.floor(limit / 2)),
    reason: `the rolling summary holds ${marker.entry.tokens} tokens, over the limit of ${limit}`,
  };
}

function planAbsorb(input: MicroInput, span: SpanSelection, summaries: readonly number[]): MicroPlan {
  const { view, settings } = input;
  const passedOver: Exchange[] = [];
  for (let i = microCursor(span.headEnd, summaries); i < span.tailStart; i++) {
    const exchange = exchangeAt(view, i);
    if (exchange === undefined) continue; // user and system messages stay verbatim
    if (!absorbable(exchange, span)) break;
    const id = exchange.entries[0]?.message.id ?? "";
    if (input.failures.failedExchanges.filter((f) => f === id).length >= settings.maxAttempts) {
      passedOver.push(exchange);
      i = exchange.end - 1;
      continue;
    }
    return absorb(input, exchange, passedOver, summaries);
  }
  const poison = passedOver.at(-1);
  if (poison !== undefined) {
    return {
      kind: "skip",
      exchange: ids(poison.entries),
      reason: `exchange ${ids(poison.entries)[0]} failed ${settings.maxAttempts} times; left verbatim`,
    };
  }
  return none("no complete exchange between the cursor and the protected tail");
}

function absorbable(exchange: Exchange, span: SpanSelection): boolean {
  if (exchange.end > span.tailStart || !isComplete(exchange)) return false;
  for (let i = exchange.start; i < exchange.end; i++) if (span.pinned.has(i)) return false;
  return true;
}

function absorb(
  input: MicroInput,
  exchange: Exchange,
  passedOver: readonly Exchange[],
  summaries: readonly number[],
): MicroPlan {
  const marker = liveMarker(input.view, summaries)?.entry;
  const at = exchange.entries[0] as LiveEntry;
  const tokens = exchange.entries.reduce((n, e) => n + e.tokens, 0);
  return {
    kind: "absorb",
    targets: [...(marker === undefined ? [] : [marker.message.id]), ...ids(exchange.entries)],
    exchange: exchange.entries,
    ...(marker === undefined ? {} : { marker, previousSummary: stripSummaryNote(messageText(marker.message)) }),
    at: at.message.id,
    passedOver: passedOver.map((p) => ids(p.entries)),
    maxSummaryTokens: 2 * input.settings.defragLimitTokens,
    reason: `absorbing exchange ${at.message.id} (${exchange.entries.length} messages, ${tokens} tokens)`,
  };
}

function ids(entries: readonly LiveEntry[]): string[] {
  return entries.map((e) => e.message.id);
}

function none(reason: string): MicroNoPlan {
  return { kind: "none", reason };
}
