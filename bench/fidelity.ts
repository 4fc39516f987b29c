/**
 * Fidelity of compaction on the real transcripts (docs/fidelity.md): each session that can compact is
 * replayed under the offline summary policy with a window of half its own token total (less if it does
 * not compact under that),
 * and per transcript file the summaries' keep ratios per kind and their size against what they removed
 * are printed, beside Claude Code's own compactions of the same sessions where the file has them.
 * Standalone: `npx tsx bench/fidelity.ts` (needs ../shared/transcripts); in the suite: `--only fidelity`.
 */
import { existsSync } from "node:fs";
import {
  type CompactionFidelity,
  FIDELITY_KINDS,
  FidelityAccumulator,
  type FidelityKind,
  type FidelitySummary,
  FidelityTracker,
  type ImportedSession,
  type Message,
  OfflineSummarizer,
  PROVIDER_PROFILES,
  type Summarizer,
  sourceFidelity,
} from "@palimpsest/core";
import { formatSummaryMessage } from "@palimpsest/core/testing";
import { createTokenCounter, encodingForModel } from "@palimpsest/core/tokenizer";
import { providerWindow, type SessionReplay } from "@palimpsest/eval";
import { readSource, replaySession, sessionCacheModel } from "@palimpsest/eval/testing";
import { openPalimpsest } from "@palimpsest/runtime";
import { profileNamed } from "@palimpsest/runtime/testing";
import {
  canCompactInReplay,
  realSessions,
  realTranscriptFiles,
  TRANSCRIPTS_DIR,
  windowFor,
} from "../test/support/real-transcripts.ts";
import { markdownTable, num, progress } from "./stats.ts";

/**
 * The shares of each session's own token total the replay window gets, tried in turn until the session
 * compacts: half first (one to a few compactions), smaller when a session's head and tail leave no middle.
 */
export const WINDOW_FRACTIONS = [1 / 2, 1 / 3, 1 / 4] as const;

/** The targets for the offline summary: the least share kept per kind, the most size written. */
export const TARGETS: Partial<Record<FidelityKind, number>> & { size: number } = {
  userRequests: 1,
  filePaths: 0.95,
  errorNames: 0.9,
  commands: 0.8,
  size: 0.08,
};

/** One transcript file: who compacted (the replay's summary policy, or the source agent), and what it kept. */
export interface FidelityResult {
  file: string;
  compactor: "offline summary" | "Claude Code" | "offline, Claude Code's span";
  /** Sessions measured (those that compacted), and the windows they were replayed with. */
  sessions: number;
  /** Sessions long enough to compact that compacted under no window tried (left out of the figures). */
  uncompacted: number;
  windows: number[];
  fidelity: FidelitySummary;
  ms: number;
}

/** Replays every compacting session of every real transcript under `summary`, and measures the source's own compactions. */
export async function runFidelityBench(policy = "summary" as const): Promise<FidelityResult[]> {
  const results: FidelityResult[] = [];
  const runtime = await openPalimpsest({ url: ":memory:" });
  const profile = profileNamed("anthropic");
  try {
    for (const file of realTranscriptFiles()) {
      const started = performance.now();
      const sessions = realSessions(file).filter(canCompactInReplay);
      const replayed = new FidelityAccumulator();
      const own = new FidelityAccumulator();
      const sameSpan = new FidelityAccumulator();
      const windows: number[] = [];
      let replayedSessions = 0;
      let uncompacted = 0;
      let ownSessions = 0;
      for (const source of sessions) {
        let contextWindow = 0;
        let replay: SessionReplay | undefined;
        // Windows are chosen in our tokens; the replay takes the provider's (its fixed prefix and token scale).
        const reading = await readSource(source);
        const cacheModel = sessionCacheModel(source, reading, profile, {});
        for (const fraction of WINDOW_FRACTIONS) {
          contextWindow = await windowFor(source, fraction);
          progress(`fidelity ${file} ${source.externalId.slice(0, 12)}: window ${contextWindow}`);
          replay = await replaySession(runtime, source, {
            policy,
            profile,
            contextWindow: providerWindow(contextWindow, cacheModel),
            source: { reading, cacheModel },
          });
          if (replay.compactions.length > 0) break;
        }
        if (replay === undefined || replay.compactions.length === 0) {
          progress(`fidelity ${file} ${source.externalId.slice(0, 12)}: never compacts, left out`);
          uncompacted += 1;
        } else {
          replayedSessions += 1;
          windows.push(contextWindow);
          for (const recall of replay.recalls) replayed.recordRequest(recall);
          for (const c of replay.compactions) replayed.recordCompaction(c.fidelity);
          replayed.recordHeld(replay.held);
        }
        if (source.items.some((i) => i.kind === "compaction")) {
          ownSessions += 1;
          const tokens = await tokensOf(source);
          const measured = sourceFidelity(source, tokens);
          for (const c of await sameSpanFidelity(source, tokens, new OfflineSummarizer())) sameSpan.recordCompaction(c);
          for (const c of measured.compactions) own.recordCompaction(c);
          for (const recall of measured.recalls) own.recordRequest(recall);
          own.recordHeld(measured.held);
        }
      }
      const ms = performance.now() - started;
      if (replayedSessions > 0) {
        results.push({
          file,
          compactor: "offline summary",
          sessions: replayedSessions,
          uncompacted,
          windows,
          fidelity: replayed.summary(),
          ms,
        });
      }
      if (ownSessions > 0) {
        results.push({
          file,
          compactor: "Claude Code",
          sessions: ownSessions,
          uncompacted: 0,
          windows: [],
          fidelity: own.summary(),
          ms,
        });
        results.push({
          file,
          compactor: "offline, Claude Code's span",
          sessions: ownSessions,
          uncompacted: 0,
          windows: [],
          fidelity: sameSpan.summary(),
          ms,
        });
      }
    }
  } finally {
    await runtime.close();
  }
  return results;
}

/**
 * `summarizer` over exactly what each of the source's own compactions removed (the messages since the
 * previous one, that one's summary passed as the previous summary), measured as the replay measures its
 * own: the same span, so the two summaries compare directly. The summary budget is the anthropic
 * profile's (a share of the removed tokens, clamped).
 */
async function sameSpanFidelity(
  source: ImportedSession,
  tokens: (message: Message) => number,
  summarizer: Summarizer,
): Promise<CompactionFidelity[]> {
  const budget = (PROVIDER_PROFILES.anthropic ?? profileNamed("anthropic")).summary;
  const out: CompactionFidelity[] = [];
  const tracker = new FidelityTracker();
  let since: Message[] = [];
  let previous: string | undefined;
  for (const item of source.items) {
    if (item.kind === "message") {
      since.push(item.message);
      tracker.append({ message: item.message, tokens: tokens(item.message) });
      continue;
    }
    const removedTokens = since.reduce((n, m) => n + tokens(m), 0);
    const maxOutputTokens = Math.min(
      budget.maxTokens,
      Math.max(budget.minTokens, Math.floor(budget.ratio * removedTokens)),
    );
    const result = await summarizer.summarize({
      messages: since,
      maxOutputTokens,
      ...(previous === undefined ? {} : { previousSummary: previous }),
    });
    const text = formatSummaryMessage(result.text);
    const message: Message = { id: `same-span-${out.length}`, role: "user", content: [{ type: "text", text }] };
    out.push(tracker.compaction([{ message, tokens: tokens(message), placedBy: "same-span" }]));
    previous = result.text;
    since = [];
  }
  return out;
}

/** A message sizer in the encoding the session's model gets (as the replay's store counts). */
async function tokensOf(source: ImportedSession): Promise<(message: Message) => number> {
  const counter = await createTokenCounter(encodingForModel(source.model));
  return (message) => counter.countMessage(message);
}

/** `kept/removed (share)` of one kind over the compactions, or `-` when none removed any. */
function keptCell(f: FidelitySummary, kind: FidelityKind): string {
  const ratio = f.keptRatio[kind];
  return ratio === null ? "-" : `${f.kept[kind]}/${f.removed[kind]} (${num(ratio * 100, 0)}%)`;
}

/** Whether a row meets the targets (kinds with nothing removed count as met). */
export function meetsTargets(f: FidelitySummary): boolean {
  const kinds = FIDELITY_KINDS.filter((k) => TARGETS[k] !== undefined);
  const kept = kinds.every((k) => f.keptRatio[k] === null || (f.keptRatio[k] ?? 0) >= (TARGETS[k] ?? 0));
  return kept && (f.sizeRatio ?? 0) <= TARGETS.size;
}

/** The markdown table of the results: one row per transcript file and compactor. */
export function fidelityTable(results: readonly FidelityResult[]): string {
  return markdownTable(
    [
      "transcript",
      "compacted by",
      "sessions (windows)",
      "compactions",
      "user requests",
      "file paths",
      "error names",
      "commands",
      "numbers",
      "size / removed",
      "mean recall",
      "targets",
    ],
    results.map((r) => {
      const f = r.fidelity;
      return [
        r.file.replace(/^claude-code\//, "cc/").replace(/([0-9a-f]{8})-[0-9a-f-]{27}/, "$1"),
        r.compactor,
        (r.windows.length === 0 ? `${r.sessions}` : `${r.sessions} (${windowsCell(r.windows)})`) +
          (r.uncompacted === 0 ? "" : `; ${r.uncompacted} never compact`),
        f.compactions,
        ...FIDELITY_KINDS.map((k) => keptCell(f, k)),
        f.sizeRatio === null ? "-" : `${num(f.sizeRatio * 100, 1)}%`,
        f.requests === 0 ? "-" : num(f.meanRecall, 2),
        r.compactor === "Claude Code" ? "-" : meetsTargets(f) ? "met" : "short",
      ];
    }),
  );
}

function windowsCell(windows: readonly number[]): string {
  const k = windows.map((w) => `${num(w / 1000, 0)}K`);
  return k.length <= 3 ? k.join(", ") : `${k.slice(0, 2).join(", ")}, … ${k.length} windows`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!existsSync(TRANSCRIPTS_DIR)) {
    console.error(`${TRANSCRIPTS_DIR} is absent: nothing to measure`);
    process.exit(1);
  }
  const started = performance.now();
  const results = await runFidelityBench();
  console.log(fidelityTable(results));
  progress(`fidelity: ${num((performance.now() - started) / 1000, 1)} s`);
}
