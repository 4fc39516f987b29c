import type { foldSessionSummary, SessionStoreEntry, SessionSummaryEntry } from "@anthropic-ai/claude-agent-sdk";
import type { MirrorKey } from "@palimpsest/core";
import type { MirrorEntryInput, MirrorSummarize } from "@palimpsest/store";
import { toSdkKey } from "./session-key.ts";

/** The SDK's summary fold, passed in by openSessionStore (the SDK is loaded there). */
export type SummaryFold = typeof foldSessionSummary;

/**
 * How an append to `key` folds its session summary (the mirror's `summarize`): the SDK's fold over the
 * entries the mirror stored (`inputs`, each the encoding of the entry at its index in `entries`), from the
 * summary held; undefined for a subpath key (a subagent's transcript has no summary).
 */
export function summaryFolder(
  foldSummary: SummaryFold,
  key: MirrorKey,
  inputs: readonly MirrorEntryInput[],
  entries: readonly SessionStoreEntry[],
): MirrorSummarize | undefined {
  if (key.subpath !== undefined) return undefined;
  const sdkKey = toSdkKey(key);
  const originals = new Map(inputs.map((input, i) => [input, entries[i] as SessionStoreEntry]));
  return (previous, stored, mtime) =>
    JSON.stringify(
      foldSummary(
        previous === null ? undefined : (JSON.parse(previous) as SessionSummaryEntry),
        sdkKey,
        stored.map((input) => originals.get(input) as SessionStoreEntry),
        { mtime },
      ),
    );
}
