/**
 * Runs the benchmarks and prints their markdown tables: `pnpm bench [-- --quick] [--only a,b] [--engine e]`
 * (`--scale-events n`: the scale bench's largest size; `--scale-partitions n`: on PostgreSQL, again on a partitioned log).
 * PostgreSQL parts need BENCH_DATABASE_URL (or TEST_DATABASE_URL); results also go to bench/results/latest.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { driverSpec, installFromTarballs } from "../test/support/installed-palimpsest.ts";
import { createScratchDatabase } from "../test/support/scratch-postgres.ts";
import { agentStepsTables, runAgentStepsSuite } from "./agent-steps.ts";
import {
  type AgentsCallsResult,
  agentsSessionTables,
  runAgentsCallsBench,
  runAgentsTokensBench,
} from "./agents-session.ts";
import { type AppendResult, runAppendBench } from "./append.ts";
import { type AuditResult, runAuditBench } from "./audit.ts";
import { type BudgetResult, runBudgetBench } from "./budget.ts";
import { type ColdStartResult, runColdStartBench } from "./cold-start.ts";
import { createSqliteFolder, layoutName, postgresServerUrl } from "./databases.ts";
import { type EncryptionRow, runEncryptionBench } from "./encryption.ts";
import { type EraseResult, runEraseBench } from "./erase.ts";
import { COPY_STAGES, type CopiesRow, runErasureCopiesBench } from "./erasure-copies.ts";
import { fidelityTable, runFidelityBench } from "./fidelity.ts";
import type { FirstAppendRow } from "./first-append.ts";
import { type FoldGrowthRow, foldGrowthTable, runFoldGrowthBench } from "./fold-growth.ts";
import { type HandoffResult, runHandoffBench } from "./handoff.ts";
import { type InstalledStartResult, runInstalledStartBench } from "./installed-start.ts";
import { type ManyWritersResult, runManyWritersBench } from "./many-writers.ts";
import { type MicroBudgetResult, runMicroBudgetBench } from "./micro-budget.ts";
import { BENCH_PARTITIONS, type PartitionResult, runPartitionBench } from "./partition.ts";
import { type PolicyDecisionResult, runPolicyDecisionBench } from "./policy-decision.ts";
import { precompactLlmTable, runPrecompactLlmBench } from "./precompact-latency.ts";
import { type PurgeEraseResult, runPurgeErasedBench } from "./purge-erased.ts";
import { postgresRawTable, sqliteRawTable } from "./raw-entry-table.ts";
import { type RecallAppendRow, type RecallLatencyRow, runRecallAppendBench, runRecallLatencyBench } from "./recall.ts";
import { type RecallQualityRow, recallQualityTables, runRecallQualityBench } from "./recall-quality.ts";
import { type ResumeResult, runResumeBench } from "./resume.ts";
import { runScaleBench, type ScaleRow } from "./scale.ts";
import { scaleTables } from "./scale-tables.ts";
import { runSessionAppendBench, type SessionAppendEngine, type SessionAppendResult } from "./session-append.ts";
import { runSessionListingBench, type SessionListingResult } from "./session-listing.ts";
import { runSessionStoreBench, type SessionStoreResult } from "./session-store.ts";
import {
  runStepWritesBench,
  runStoreFirstAppendBench,
  type StepWritesRow,
  stepWritesTable,
  storeFirstAppendTable,
} from "./session-store-steps.ts";
import { runSnapshotGrowthBench, type SnapshotGrowthRow, snapshotGrowthTable } from "./snapshot-growth.ts";
import { runSqliteLockBench, type SqliteLockResult } from "./sqlite-lock.ts";
import { markdownTable, ms, num, progress, ratio } from "./stats.ts";
import { runTenantRlsBench, type TenantRlsRow } from "./tenant-rls.ts";
import {
  formatBenchTable,
  formatPreTokenizerTable,
  runBeyondAsciiBench,
  runPreTokenizerBench,
  runTokenizerBench,
  tokenizerCorpus,
} from "./tokenizers.ts";
import { runWatchBench, type WatchResult } from "./watch.ts";

const BENCHES = [
  "append",
  "session-append",
  "agent-steps",
  "snapshot-growth",
  "tenant-rls",
  "encryption",
  "recall",
  "resume",
  "budget",
  "micro-budget",
  "policy-decision",
  "tokenizers",
  "cold-start",
  "installed-start",
  "session-listing",
  "erase",
  "purge-erased",
  "audit",
  "watch",
  "handoff",
  "sqlite-lock",
  "many-writers",
  "session-store",
  "session-store-steps",
  "fold-growth",
  "agents-session",
  "fidelity",
  "precompact-llm",
  "scale",
  "partition",
] as const;
type BenchName = (typeof BENCHES)[number];

/**
 * The command line: `--quick`, `--only a,b`, `--engine postgres|sqlite` (one engine), `--scale-events n`,
 * `--scale-partitions n`.
 */
interface BenchArgs {
  quick: boolean;
  only: Set<BenchName>;
  engine?: "postgres" | "sqlite";
  scaleEvents?: number;
  /** The scale bench on PostgreSQL runs again on a log divided into this many partitions. */
  scalePartitions?: number;
}

function parseArgs(argv: readonly string[]): BenchArgs {
  const quick = argv.includes("--quick");
  const at = argv.indexOf("--only");
  const names = at >= 0 ? (argv[at + 1] ?? "").split(",").filter((n) => n.length > 0) : [...BENCHES];
  const unknown = names.filter((n) => !(BENCHES as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`unknown bench ${unknown.join(", ")}; expected ${BENCHES.join(",")}`);
  const scaleAt = argv.indexOf("--scale-events");
  const scaleEvents = scaleAt >= 0 ? Number(argv[scaleAt + 1]) : undefined;
  if (scaleEvents !== undefined && !(Number.isInteger(scaleEvents) && scaleEvents > 0)) {
    throw new Error(`--scale-events needs a whole number of events, not ${argv[scaleAt + 1]}`);
  }
  const partitionsAt = argv.indexOf("--scale-partitions");
  const scalePartitions = partitionsAt >= 0 ? Number(argv[partitionsAt + 1]) : undefined;
  if (scalePartitions !== undefined && !(Number.isInteger(scalePartitions) && scalePartitions >= 2)) {
    throw new Error(`--scale-partitions needs a whole number of partitions, 2 or more, not ${argv[partitionsAt + 1]}`);
  }
  const engineAt = argv.indexOf("--engine");
  const engine = engineAt >= 0 ? argv[engineAt + 1] : undefined;
  if (engine !== undefined && engine !== "postgres" && engine !== "sqlite") {
    throw new Error(`--engine takes postgres or sqlite, not ${engine}`);
  }
  return {
    quick,
    only: new Set(names as BenchName[]),
    ...(engine === undefined ? {} : { engine }),
    ...(scaleEvents === undefined ? {} : { scaleEvents }),
    ...(scalePartitions === undefined ? {} : { scalePartitions }),
  };
}

function appendTable(rows: readonly AppendResult[]): string {
  return markdownTable(
    ["engine", "events / tx", "events", "ours events/s", "raw INSERT events/s", "ours / raw"],
    rows.map((r) => [r.engine, r.batch, num(r.eventsPerRep), num(r.oursPerSec), num(r.rawPerSec), ratio(r.ratio)]),
  );
}

function sessionAppendTable(rows: readonly SessionAppendResult[]): string {
  return markdownTable(
    ["engine", "turns / rep", "reps", "turns/s", "p50 / p99 turn"],
    rows.map((r) => [r.engine, r.turnsPerRep, r.reps, num(r.turnsPerSec), `${ms(r.p50TurnMs)} / ${ms(r.p99TurnMs)}`]),
  );
}

function tenantRlsTable(rows: readonly TenantRlsRow[]): string {
  const base = rows[0];
  return markdownTable(
    ["connection", "turns", "p50 / p99 turn", "turn p50 vs superuser", "resume", "resume vs superuser"],
    rows.map((r) => [
      r.connection,
      r.turns,
      `${ms(r.p50TurnMs)} / ${ms(r.p99TurnMs)}`,
      ratio(r.p50TurnMs / (base?.p50TurnMs ?? r.p50TurnMs)),
      ms(r.resumeMs),
      ratio(r.resumeMs / (base?.resumeMs ?? r.resumeMs)),
    ]),
  );
}

function encryptionTable(rows: readonly EncryptionRow[]): string {
  return markdownTable(
    [
      "engine",
      "store",
      "turns",
      "p50 / p99 turn",
      "turn p50 vs plain",
      "first resume",
      "vs plain",
      "resume again",
      "vs plain",
    ],
    rows.map((r) => {
      const plain = rows.find((p) => p.engine === r.engine) ?? r;
      return [
        r.engine,
        r.store,
        r.turns,
        `${ms(r.p50TurnMs)} / ${ms(r.p99TurnMs)}`,
        ratio(r.p50TurnMs / plain.p50TurnMs),
        ms(r.resumeMs),
        ratio(r.resumeMs / plain.resumeMs),
        ms(r.againMs),
        ratio(r.againMs / plain.againMs),
      ];
    }),
  );
}

function recallAppendTable(rows: readonly RecallAppendRow[]): string {
  return markdownTable(
    ["engine", "store", "turns", "p50 / p99 turn", "turn p50 vs search: false", "resume"],
    rows.map((r) => {
      const off = rows.find((o) => o.engine === r.engine && o.store === "search: false") ?? r;
      return [
        r.engine,
        r.store,
        r.turns,
        `${ms(r.p50TurnMs)} / ${ms(r.p99TurnMs)}`,
        ratio(r.p50TurnMs / off.p50TurnMs),
        ms(r.resumeMs),
      ];
    }),
  );
}

function recallLatencyTable(rows: readonly RecallLatencyRow[]): string {
  return markdownTable(
    [
      "engine",
      "messages",
      "rare word (1 hit)",
      "medium (1 per 1,000)",
      "3 common words",
      "LIKE scan, rare word",
      "found first",
    ],
    rows.map((r) => [
      r.engine,
      num(r.messages),
      ms(r.rareMs),
      ms(r.mediumMs),
      ms(r.commonMs),
      ms(r.likeMs),
      r.found ? "yes" : "NO",
    ]),
  );
}

function resumeTable(rows: readonly ResumeResult[]): string {
  return markdownTable(
    [
      "engine",
      "messages",
      "events",
      "live msgs",
      "full replay",
      "growth",
      "from snapshot",
      "growth",
      "snapshot size",
      "of which live view",
      "replay / snapshot",
      "raw read of the live rows",
      "snapshot / raw live",
    ],
    rows.map((r, i) => {
      const previous = rows[i - 1]?.engine === r.engine ? rows[i - 1] : undefined;
      const growth = (now: number, before: number | undefined) => (before === undefined ? "" : ratio(now / before));
      return [
        r.engine,
        num(r.messages),
        num(r.events),
        num(r.liveMessages),
        ms(r.replayMs),
        growth(r.replayMs, previous?.replayMs),
        `${ms(r.snapshotMs)} (+${r.replayedAfterSnapshot} events)`,
        growth(r.snapshotMs, previous?.snapshotMs),
        `${num(r.snapshotBytes / 1e6, 1)} MB`,
        `${num(r.liveBytes / 1e6, 2)} MB`,
        ratio(r.replayMs / r.snapshotMs),
        ms(r.rawLiveMs),
        ratio(r.snapshotMs / r.rawLiveMs),
      ];
    }),
  );
}

function budgetTable(rows: readonly BudgetResult[]): string {
  return markdownTable(
    [
      "live messages",
      "state.liveTokens",
      "view().tokens",
      "re-estimate (baseline)",
      "baseline / liveTokens",
      "baseline / view()",
    ],
    rows.map((r) => [
      num(r.messages),
      ms(r.liveTokensMs),
      ms(r.viewTokensMs),
      ms(r.baselineMs),
      ratio(r.baselineMs / r.liveTokensMs),
      ratio(r.baselineMs / r.viewTokensMs),
    ]),
  );
}

function policyDecisionTable(rows: readonly PolicyDecisionResult[]): string {
  return markdownTable(
    [
      "live messages",
      "summaries",
      "live tokens",
      "summary plan()",
      "cost-optimal plan()",
      "cost-optimal / summary",
      "decided",
    ],
    rows.map((r) => [
      num(r.messages),
      num(r.summaries),
      num(r.liveTokens),
      ms(r.summaryMs),
      ms(r.costOptimalMs),
      ratio(r.costOptimalMs / r.summaryMs),
      r.costOptimalPlan,
    ]),
  );
}

function microBudgetTable(rows: readonly MicroBudgetResult[]): string {
  return markdownTable(
    [
      "live messages",
      "plan",
      "planMicro",
      "cursor scan",
      "marker scan",
      "selectSpan",
      "2 × re-estimate",
      "baseline / plan",
    ],
    rows.map((r) => [
      num(r.messages),
      r.plan,
      ms(r.planMs),
      ms(r.cursorScanMs),
      ms(r.markerScanMs),
      ms(r.spanMs),
      ms(r.baselineMs),
      ratio(r.baselineMs / r.planMs),
    ]),
  );
}

function coldStartTable(rows: readonly ColdStartResult[]): string {
  return markdownTable(
    ["engine", "runs", "`npx palimpsest sessions --json`", "the bin alone", '`node -e ""`', "npx / node", "bin / node"],
    rows.map((r) => [r.engine, r.runs, ms(r.npxMs), ms(r.binMs), ms(r.nodeMs), ratio(r.npxRatio), ratio(r.binRatio)]),
  );
}

function installedStartTable(rows: readonly InstalledStartResult[]): string {
  return markdownTable(
    [
      "engine",
      "runs",
      "installed bin `sessions --json`",
      "same, tsc output unbundled",
      '`node -e ""`',
      "bin / node",
      "peak RSS bin",
      "RSS unbundled",
      "RSS node",
    ],
    rows.map((r) => [
      r.engine,
      r.runs,
      ms(r.cliMs),
      ms(r.unbundledMs),
      ms(r.nodeMs),
      ratio(r.ratio),
      `${num(r.cliRssMb)} MB`,
      `${num(r.unbundledRssMb)} MB`,
      `${num(r.nodeRssMb)} MB`,
    ]),
  );
}

function eraseTable(rows: readonly EraseResult[]): string {
  return markdownTable(
    ["engine", "messages", "erase", "read the same log (baseline)", "erase / read"],
    rows.map((r) => [r.engine, num(r.messages), ms(r.eraseMs), ms(r.readMs), ratio(r.eraseMs / r.readMs)]),
  );
}

function partitionTable(rows: readonly PartitionResult[]): string {
  return markdownTable(
    [
      "events",
      "load through the store",
      `divided into ${BENCH_PARTITIONS} partitions`,
      "longest table",
      "divided events/s",
      "divide / load",
    ],
    rows.map((r) => {
      const longest = r.tables.reduce((a, b) => (b.ms > a.ms ? b : a));
      return [
        num(r.events),
        ms(r.loadMs),
        ms(r.convertMs),
        `${longest.name} ${ms(longest.ms)}`,
        num((r.events * 1000) / r.convertMs),
        ratio(r.convertMs / r.loadMs),
      ];
    }),
  );
}

/** The partitions of the purge bench's partitioned PostgreSQL log. */
const PURGE_PARTITIONS = 16;

function purgeErasedTable(rows: readonly PurgeEraseResult[]): string {
  return markdownTable(
    [
      "engine",
      "events (erased sessions)",
      "rewritten before → after",
      "purge",
      "longest rewrite",
      "appends in flight: p99 / max",
      "baseline p99 / max",
      "p99 ratio",
      "max ratio",
      "writer errors",
    ],
    rows.map((r) => [
      layoutName(r.engine, r.partitions),
      `${num(r.events)} (${r.erasedSessions})`,
      `${num(r.bytesBefore / 1e6, 1)} MB → ${num(r.bytesAfter / 1e6, 1)} MB`,
      ms(r.purgeMs),
      `${r.longestRewrite.name} ${ms(r.longestRewrite.ms)}`,
      `${ms(r.during.p99Ms)} / ${ms(r.during.maxMs)} (${r.during.appends})`,
      `${ms(r.baseline.p99Ms)} / ${ms(r.baseline.maxMs)} (${r.baseline.appends})`,
      ratio(r.during.p99Ms / r.baseline.p99Ms),
      ratio(r.during.maxMs / r.baseline.maxMs),
      r.writerErrors,
    ]),
  );
}

function erasureCopiesTable(rows: readonly CopiesRow[]): string {
  return markdownTable(
    ["engine", "relation", "planted", "after erase", "after plain VACUUM", "after purgeErased"],
    rows.map((r) => [
      r.engine,
      r.relation === "all" ? "**all files**" : r.relation,
      ...COPY_STAGES.map((stage) => (r.copies[stage] === undefined ? "–" : num(r.copies[stage] ?? 0))),
    ]),
  );
}

function sessionListingTable(rows: readonly SessionListingResult[]): string {
  return markdownTable(
    [
      "engine",
      "sessions",
      "old: resume every session",
      `new: first page (${rows[0]?.pageSize ?? 50})`,
      "new: page from the middle",
      "old / new",
      "new page growth (10x sessions)",
    ],
    rows.map((r, i) => {
      const previous = rows[i - 1]?.engine === r.engine ? rows[i - 1] : undefined;
      return [
        r.engine,
        num(r.sessions),
        ms(r.oldMs),
        ms(r.firstPageMs),
        ms(r.middlePageMs),
        ratio(r.oldMs / r.firstPageMs),
        previous === undefined ? "" : ratio(r.firstPageMs / previous.firstPageMs),
      ];
    }),
  );
}

function auditTables(results: readonly AuditResult[]): string {
  const catchUp = markdownTable(
    [
      "engine",
      "events",
      "compactions / superseded rows",
      "catch-up from empty",
      "events/s",
      "readAll paging",
      "events/s",
      "catch-up / readAll",
      "rebuild --check",
      "rebuild / catch-up",
      "1 turn: append",
      "1 turn: catch-up",
    ],
    results.map(({ catchUp: r }) => [
      r.engine,
      num(r.events),
      `${num(r.compactions)} / ${num(r.supersessions)}`,
      ms(r.catchUpMs),
      num((r.events / r.catchUpMs) * 1000),
      ms(r.readAllMs),
      num((r.events / r.readAllMs) * 1000),
      ratio(r.catchUpMs / r.readAllMs),
      ms(r.rebuildCheckMs),
      ratio(r.rebuildCheckMs / r.catchUpMs),
      ms(r.turnAppendMs),
      ms(r.turnCatchUpMs),
    ]),
  );
  const queries = markdownTable(
    [
      "engine",
      "query",
      "models current",
      "with catch-up on read",
      "loadSession replay (long session)",
      "replay / query",
    ],
    results.flatMap((r) =>
      r.queries.map((q) => [
        q.engine,
        q.query,
        ms(q.queryMs),
        ms(q.freshMs),
        ms(q.replayMs),
        ratio(q.replayMs / q.freshMs),
      ]),
    ),
  );
  const append = markdownTable(
    [
      "engine",
      "events / rep (10 / tx)",
      "alone events/s",
      "readAll reader running",
      "reader / alone",
      "projector running",
      "projector / alone",
      "projector / reader",
    ],
    results.map(({ append: r }) => [
      r.engine,
      num(r.eventsPerRep),
      num(r.alonePerSec),
      num(r.withReaderPerSec),
      ratio(r.withReaderPerSec / r.alonePerSec),
      num(r.withProjectorPerSec),
      ratio(r.withProjectorPerSec / r.alonePerSec),
      ratio(r.withProjectorPerSec / r.withReaderPerSec),
    ]),
  );
  return [catchUp, queries, append].join("\n\n");
}

function watchTables(results: readonly WatchResult[]): string {
  const wake = markdownTable(
    ["engine", "heard by", "append in", "samples", "median", "p95"],
    results.flatMap((r) =>
      r.wake.map((w) => [
        w.engine,
        w.pollMs === undefined ? "LISTEN/NOTIFY" : `poll every ${w.pollMs} ms`,
        w.writer,
        w.samples,
        ms(w.medianMs),
        ms(w.p95Ms),
      ]),
    ),
  );
  const catchUp = markdownTable(
    ["engine", "events", "watchEvents({all})", "events/s", "readAll paging", "events/s", "watch / readAll"],
    results.map(({ catchUp: r }) => [
      r.engine,
      num(r.events),
      ms(r.watchMs),
      num((r.events / r.watchMs) * 1000),
      ms(r.readAllMs),
      num((r.events / r.readAllMs) * 1000),
      ratio(r.watchMs / r.readAllMs),
    ]),
  );
  return [wake, catchUp].join("\n\n");
}

function handoffTable(rows: readonly HandoffResult[]): string {
  return markdownTable(
    ["engine", "hand-offs / rep", "1 claimer claims/s", `${rows[0]?.racers ?? 4} claimers claims/s`, "racing / one"],
    rows.map((r) => [
      r.engine,
      num(r.handoffsPerRep),
      num(r.onePerSec),
      num(r.racingPerSec),
      ratio(r.racingPerSec / r.onePerSec),
    ]),
  );
}

function manyWritersTable(rows: readonly ManyWritersResult[]): string {
  const rate = (engine: string, layout: ManyWritersResult["layout"]) =>
    rows.find((r) => r.engine === engine && r.layout === layout)?.turnsPerSec ?? Number.NaN;
  return markdownTable(
    [
      "engine",
      "writers",
      "turns each",
      "reps",
      "turns/s (all writers)",
      "p50 / p99 turn",
      "/ 1 writer",
      "/ 4 writers, 4 sessions",
      "errors",
    ],
    rows.map((r) => [
      r.engine,
      r.layout,
      r.turnsPerWriter,
      r.reps,
      num(r.turnsPerSec),
      `${ms(r.p50TurnMs)} / ${ms(r.p99TurnMs)}`,
      ratio(r.turnsPerSec / rate(r.engine, "1 writer, 1 session")),
      ratio(r.turnsPerSec / rate(r.engine, "4 writers, 4 sessions")),
      r.errors,
    ]),
  );
}

function sqliteLockTable(rows: readonly SqliteLockResult[]): string {
  const newGap = rows.find((r) => r.mechanism === "retry on timers (new)")?.maxLoopGapMs ?? Number.NaN;
  return markdownTable(
    ["mechanism", "lock held", "reps", "write waited", "longest event-loop stall", "stall / new"],
    rows.map((r) => [
      r.mechanism,
      ms(r.holdMs),
      r.reps,
      ms(r.waitMs),
      ms(r.maxLoopGapMs),
      ratio(r.maxLoopGapMs / newGap),
    ]),
  );
}

function sessionStoreTables(results: readonly SessionStoreResult[]): string {
  const p = (l: { p50: number; p99: number }) => `${ms(l.p50)} / ${ms(l.p99)}`;
  const r = (a: { p50: number; p99: number }, b: { p50: number; p99: number }) =>
    `${ratio(a.p50 / b.p50)} / ${ratio(a.p99 / b.p99)}`;
  const batches = markdownTable(
    [
      "engine",
      "batches (entries, MiB each)",
      "raw INSERT p50 / p99",
      "append",
      "append / raw",
      "append + its fold",
      "+ fold / raw",
      "append + flush",
      "+ flush / raw",
      "failed folds",
    ],
    results.map(({ engine, batches: b }) => [
      engine,
      `${b.sessions} × ${b.batchesPerSession} (${num(b.entriesPerBatch)}, ${num(b.mibPerBatch, 2)})`,
      p(b.raw),
      p(b.append),
      r(b.append, b.raw),
      p(b.appendFold),
      r(b.appendFold, b.raw),
      p(b.appendFlush),
      r(b.appendFlush, b.raw),
      b.foldFailures,
    ]),
  );
  const growth = markdownTable(
    ["engine", "key", ...(results[0]?.load.foldByBatch.map((_, i) => `batch ${i + 1}`) ?? [])],
    results.flatMap(({ engine, batches: b, load: l }) => [
      [engine, `median of ${b.sessions}`, ...b.foldByBatch.map(ms)],
      [engine, `${num(l.entries)}-entry load key`, ...l.foldByBatch.map(ms)],
    ]),
  );
  const concurrent = markdownTable(
    [
      "engine",
      "appenders × batches",
      "raw p50 / p99",
      "ours p50 / p99",
      "ours / raw",
      "raw wall",
      "ours wall",
      "fold drain after",
      "failed folds",
    ],
    results.flatMap(({ engine, concurrent: c }) =>
      c === undefined
        ? []
        : [
            [
              engine,
              `${c.appenders} × ${c.batchesEach}`,
              p(c.raw),
              p(c.ours),
              r(c.ours, c.raw),
              ms(c.rawWallMs),
              ms(c.oursWallMs),
              ms(c.drainMs),
              c.foldFailures,
            ],
          ],
    ),
  );
  const load = markdownTable(
    ["engine", "entries", "ours load", "raw SELECT … ORDER BY seq", "ours / raw"],
    results.map(({ engine, load: l }) => [
      engine,
      num(l.entries),
      ms(l.oursMs),
      ms(l.rawMs),
      ratio(l.oursMs / l.rawMs),
    ]),
  );
  const eager = markdownTable(
    [
      "engine",
      "entries",
      "ours appends/s (folder running)",
      "ours, fold deferred",
      "raw 1-row inserts/s",
      "ours / raw",
      "deferred / raw",
      "fold drain after",
      "failed folds",
    ],
    results.map(({ engine, eager: e }) => [
      engine,
      num(e.entries),
      num(e.oursPerSec),
      num(e.deferredPerSec),
      num(e.rawPerSec),
      ratio(e.oursPerSec / e.rawPerSec),
      ratio(e.deferredPerSec / e.rawPerSec),
      ms(e.drainMs),
      e.foldFailures,
    ]),
  );
  const flushes = markdownTable(
    ["engine", "keys touched", "`flush()` with nothing new"],
    results.map(({ engine, batches: b }) => [engine, b.keysTouched, ms(b.idleFlushMs)]),
  );
  return [batches, "Append + its fold by batch index (median):", growth, flushes, concurrent, load, eager].join("\n\n");
}

const { quick, only, engine: oneEngine, scaleEvents, scalePartitions } = parseArgs(process.argv.slice(2));
const serverUrl = postgresServerUrl();
if (serverUrl === undefined) {
  progress("!!!!!!!! NO BENCH_DATABASE_URL / TEST_DATABASE_URL: PostgreSQL is SKIPPED, SQLite runs alone !!!!!!!!");
}
const engines = (serverUrl === undefined ? (["sqlite"] as const) : (["postgres", "sqlite"] as const)).filter(
  (engine) => oneEngine === undefined || engine === oneEngine,
);
if (engines.length === 0) throw new Error("--engine postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL");
const folder = createSqliteFolder();
const pgDatabases: { drop(): Promise<void> }[] = [];
/** A fresh database (PostgreSQL) or file (SQLite) for one benchmark. */
async function databaseFor(engine: "postgres" | "sqlite", label: string): Promise<string> {
  if (engine === "sqlite" || serverUrl === undefined) return folder.path(`${label}.db`);
  const database = await createScratchDatabase(serverUrl, `bench_${label.replace(/\W/g, "_")}`);
  pgDatabases.push(database);
  return database.url;
}

const results: Record<string, unknown> = {
  date: new Date().toISOString(),
  quick,
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, postgres: serverUrl !== undefined },
};
const tables: string[] = [`# Palimpsest benchmarks${quick ? " (--quick)" : ""}`];
try {
  if (only.has("append")) {
    const rows: AppendResult[] = [];
    for (const engine of engines) {
      const url = await databaseFor(engine, "append");
      rows.push(...(await runAppendBench({ engine, url, rawSqlitePath: folder.path("append-raw.db") }, quick)));
    }
    results.append = rows;
    tables.push("## Append throughput", appendTable(rows));
  }
  if (only.has("session-append")) {
    const rows: SessionAppendResult[] = [];
    for (const engine of [...engines, "memory"] as const satisfies readonly SessionAppendEngine[]) {
      const url = engine === "memory" ? undefined : await databaseFor(engine, "session_append");
      rows.push(await runSessionAppendBench(engine, url, quick));
    }
    results.sessionAppend = rows;
    tables.push("## An agent turn through Session (4 appends + completeTurn)", sessionAppendTable(rows));
  }
  if (only.has("agent-steps")) {
    const places = { database: databaseFor, sqliteFile: (name: string) => folder.path(name) };
    const { rows, first } = await runAgentStepsSuite(engines, places, quick);
    results.agentSteps = { rows, first };
    tables.push(
      "## An agent's model steps through Session, beside a plain table (a real Claude Code session)",
      rows.length === 0
        ? "> **No real transcripts (../shared/transcripts is absent): nothing measured.**"
        : agentStepsTables(rows, first),
    );
  }
  if (only.has("snapshot-growth")) {
    const rows: SnapshotGrowthRow[] = [];
    for (const engine of engines) {
      const url = await databaseFor(engine, "snapshot_growth");
      const raw =
        engine === "postgres" ? await postgresRawTable(url) : sqliteRawTable(folder.path("snapshot-growth-raw.db"));
      try {
        rows.push(...(await runSnapshotGrowthBench(engine, url, raw, quick ? 3 : 6)));
      } finally {
        await raw.close();
      }
    }
    results.snapshotGrowth = rows;
    tables.push(
      "## A session growing without compaction: its slowest step per pass (snapshots)",
      rows.length === 0
        ? "> **No real transcripts (../shared/transcripts is absent): nothing measured.**"
        : snapshotGrowthTable(rows),
    );
  }
  if (only.has("tenant-rls") && serverUrl !== undefined) {
    const rows = await runTenantRlsBench(await databaseFor("postgres", "tenant_rls"), quick);
    results.tenantRls = rows;
    tables.push("## PostgreSQL row-level security on an agent's turns and resume (tenants)", tenantRlsTable(rows));
  }
  if (only.has("encryption")) {
    const rows: EncryptionRow[] = [];
    for (const engine of engines)
      rows.push(...(await runEncryptionBench(engine, await databaseFor(engine, "encryption"), quick)));
    results.encryption = rows;
    tables.push("## Encrypted content on an agent's turns and resume (the keyring option)", encryptionTable(rows));
  }
  if (only.has("recall")) {
    const appends: RecallAppendRow[] = [];
    const latency: RecallLatencyRow[] = [];
    const quality: RecallQualityRow[] = [];
    for (const engine of engines) {
      appends.push(...(await runRecallAppendBench(engine, await databaseFor(engine, "recall_append"), quick)));
      const sizes = quick ? [1_000, 10_000] : [10_000, 100_000];
      latency.push(...(await runRecallLatencyBench(engine, await databaseFor(engine, "recall_latency"), sizes)));
      quality.push(...(await runRecallQualityBench(engine, await databaseFor(engine, "recall_quality"))));
    }
    results.recall = { appends, latency, quality };
    tables.push(
      "## Recall: the search index on an agent's turns (search: false beside it)",
      recallAppendTable(appends),
      "## Recall: session.recall in a long session, beside a LIKE scan",
      recallLatencyTable(latency),
      "## Recall: recall@5 of the facts a summary dropped (real transcripts), beside a LIKE scan",
      quality.length === 0
        ? "> **No real transcripts (../shared/transcripts is absent): nothing measured.**"
        : recallQualityTables(quality),
    );
  }
  if (only.has("resume")) {
    const rows: ResumeResult[] = [];
    for (const engine of engines)
      rows.push(...(await runResumeBench(engine, await databaseFor(engine, "resume"), quick)));
    results.resume = rows;
    tables.push("## Resume (loadSession)", resumeTable(rows));
  }
  // Before budget: the budget bench loads gpt-tokenizer's encoding, which would zero its init time here.
  if (only.has("tokenizers")) {
    progress("tokenizers");
    const rows = await runTokenizerBench();
    const beyondAscii = runBeyondAsciiBench();
    const preTokenizer = runPreTokenizerBench(tokenizerCorpus().messages);
    results.tokenizers = { rows, beyondAscii, preTokenizer };
    tables.push(
      "## Tokenizers",
      formatBenchTable(rows),
      `Beyond ASCII, in a fresh process: ${beyondAscii[0]?.corpus}.`,
      formatBenchTable(beyondAscii),
      formatPreTokenizerTable(preTokenizer),
    );
  }
  if (only.has("budget")) {
    const rows = await runBudgetBench(quick);
    results.budget = rows;
    tables.push("## Per-turn budget check", budgetTable(rows));
  }
  if (only.has("policy-decision")) {
    const rows = await runPolicyDecisionBench(quick);
    results.policyDecision = rows;
    tables.push("## Per-turn policy decision", policyDecisionTable(rows));
  }
  if (only.has("micro-budget")) {
    const rows = await runMicroBudgetBench(quick);
    results.microBudget = rows;
    tables.push("## Micro pass budget check", microBudgetTable(rows));
  }
  if (only.has("cold-start")) {
    const rows: ColdStartResult[] = [];
    for (const engine of engines) rows.push(await runColdStartBench(engine, await databaseFor(engine, "cold"), quick));
    results.coldStart = rows;
    tables.push("## Cold start of one CLI command in the checkout", coldStartTable(rows));
  }
  if (only.has("installed-start")) {
    progress("installed-start: build, pack and npm install into a temp project");
    // Both drivers, as a user of both engines installs them (each is an optional peer).
    const project = await installFromTarballs([driverSpec("pg"), driverSpec("better-sqlite3")]);
    try {
      const rows: InstalledStartResult[] = [];
      for (const engine of engines) {
        const url = engine === "sqlite" ? undefined : await databaseFor(engine, "installed");
        rows.push(await runInstalledStartBench(project, engine, url, quick));
      }
      results.installedStart = rows;
      tables.push("## Cold start of the installed bin (compiled, npm-installed)", installedStartTable(rows));
    } finally {
      await project.dispose();
    }
  }
  if (only.has("session-listing")) {
    const rows: SessionListingResult[] = [];
    for (const engine of engines) {
      rows.push(...(await runSessionListingBench(engine, await databaseFor(engine, "listing"), quick)));
    }
    results.sessionListing = rows;
    tables.push("## `palimpsest sessions`: one page against every session", sessionListingTable(rows));
  }
  if (only.has("erase")) {
    const rows: EraseResult[] = [];
    for (const engine of engines)
      rows.push(...(await runEraseBench(engine, await databaseFor(engine, "erase"), quick)));
    results.erase = rows;
    tables.push("## Erasure: one session's content against reading its log", eraseTable(rows));
  }
  if (only.has("purge-erased")) {
    const rows: PurgeEraseResult[] = [];
    for (const engine of engines) {
      rows.push(...(await runPurgeErasedBench(engine, (label) => databaseFor(engine, label), quick)));
      if (engine === "postgres") {
        rows.push(
          ...(await runPurgeErasedBench(engine, (label) => databaseFor(engine, label), quick, PURGE_PARTITIONS)),
        );
      }
    }
    const copies: CopiesRow[] = [];
    for (const engine of engines)
      copies.push(...(await runErasureCopiesBench(engine, await databaseFor(engine, "copies"))));
    results.purgeErased = { rows, copies };
    tables.push(
      "## Purging erased content: the copies left on disk, and the writes it holds up",
      erasureCopiesTable(copies),
      purgeErasedTable(rows),
    );
  }
  if (only.has("audit")) {
    const rows: AuditResult[] = [];
    for (const engine of engines) rows.push(await runAuditBench(engine, await databaseFor(engine, "audit"), quick));
    results.audit = rows;
    tables.push("## Audit read models", auditTables(rows));
  }
  if (only.has("watch")) {
    const rows: WatchResult[] = [];
    for (const engine of engines) rows.push(await runWatchBench(engine, (label) => databaseFor(engine, label), quick));
    results.watch = rows;
    tables.push("## Live views", watchTables(rows));
  }
  // PostgreSQL only: SQLite's claimers in one process take turns on one thread, so they never race.
  if (only.has("handoff") && serverUrl !== undefined) {
    const rows = [await runHandoffBench("postgres", await databaseFor("postgres", "handoff"), quick)];
    results.handoff = rows;
    tables.push("## Hand-off claims", handoffTable(rows));
  }
  if (only.has("sqlite-lock")) {
    const rows = await runSqliteLockBench(folder.path("sqlite-lock.db"), quick);
    results.sqliteLock = rows;
    tables.push("## SQLite: a write while another process holds the lock", sqliteLockTable(rows));
  }
  if (only.has("many-writers")) {
    const rows: ManyWritersResult[] = [];
    for (const engine of engines) {
      rows.push(...(await runManyWritersBench(engine, await databaseFor(engine, "many_writers"), quick)));
    }
    results.manyWriters = rows;
    tables.push("## Many writers on one session", manyWritersTable(rows));
  }
  if (only.has("session-store")) {
    const rows: SessionStoreResult[] = [];
    for (const engine of engines) {
      const url = await databaseFor(engine, "session_store");
      rows.push(await runSessionStoreBench({ engine, url, rawSqlitePath: folder.path("session-store-raw.db") }, quick));
    }
    results.sessionStore = rows;
    tables.push("## Claude Agent SDK SessionStore against the reference table", sessionStoreTables(rows));
  }
  if (only.has("session-store-steps")) {
    const rows: StepWritesRow[] = [];
    const first: FirstAppendRow[] = [];
    for (const engine of engines) {
      const url = (passes: number) => databaseFor(engine, `session_store_steps_${passes}`);
      rows.push(...(await runStepWritesBench(engine, url, (p) => folder.path(`steps-raw-${p}.db`), quick)));
      first.push(runStoreFirstAppendBench(engine, await databaseFor(engine, "session_store_first"), quick));
    }
    results.sessionStoreSteps = { rows, first };
    tables.push(
      "## Claude Agent SDK SessionStore, one append per model step",
      `${stepWritesTable(rows)}\n\n${storeFirstAppendTable(first)}`,
    );
  }
  if (only.has("fold-growth")) {
    const rows: FoldGrowthRow[] = [];
    for (const engine of engines) {
      const url = await databaseFor(engine, "fold_growth");
      rows.push(...(await runFoldGrowthBench(engine, url, folder.path("fold-growth-raw.db"), quick)));
    }
    results.foldGrowth = rows;
    tables.push("## Append + its fold as a mirrored key grows", foldGrowthTable(rows));
  }
  if (only.has("agents-session")) {
    const calls: AgentsCallsResult[] = [];
    for (const engine of engines) {
      const url = await databaseFor(engine, "agents_session");
      calls.push(await runAgentsCallsBench({ engine, url, rawSqlitePath: folder.path("agents-raw.db") }, quick));
    }
    const runs = await runAgentsTokensBench(folder.path("agents-tokens.db"), quick);
    results.agentsSession = { calls, runs };
    tables.push("## OpenAI Agents SDK Session against MemorySession and a raw table", agentsSessionTables(calls, runs));
  }
  if (only.has("fidelity")) {
    const rows = await runFidelityBench();
    results.fidelity = rows;
    tables.push(
      "## Fidelity: what compaction summaries keep of what they remove (real transcripts)",
      rows.length === 0
        ? "> **No real transcripts (../shared/transcripts is absent): nothing measured.**"
        : fidelityTable(rows),
    );
  }
  if (only.has("precompact-llm")) {
    const result = await runPrecompactLlmBench();
    results.precompactLlm = result;
    tables.push(
      "## Pre-compaction with a summarizer that takes time (real transcripts)",
      result.rows.length === 0
        ? "> **No real transcripts (../shared/transcripts is absent): nothing measured.**"
        : precompactLlmTable(result),
    );
  }
  if (only.has("scale")) {
    const rows: ScaleRow[] = [];
    const sized = { quick, ...(scaleEvents === undefined ? {} : { events: scaleEvents }) };
    for (const engine of engines) {
      rows.push(...(await runScaleBench(engine, await databaseFor(engine, "scale"), sized)));
      if (engine === "postgres" && scalePartitions !== undefined) {
        const url = await databaseFor(engine, "scale_partitioned");
        rows.push(...(await runScaleBench(engine, url, { ...sized, partitions: scalePartitions })));
      }
    }
    results.scale = rows;
    tables.push(
      "## Scale: costs as the log grows tenfold (PostgreSQL vacuumed, analyzed and checkpointed after each load step)",
      scaleTables(rows),
    );
  }
  if (only.has("partition") && engines.includes("postgres") && serverUrl !== undefined) {
    const rows = await runPartitionBench((label) => databaseFor("postgres", label), quick);
    results.partition = rows;
    tables.push("## Partitioning an existing log (PostgreSQL)", partitionTable(rows));
  }
} finally {
  await Promise.all(pgDatabases.map((d) => d.drop()));
  folder.drop();
}
if (serverUrl === undefined) tables.push("> **PostgreSQL was skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL.**");
console.log(tables.join("\n\n"));
const out = new URL("results/", import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(new URL("latest.json", out), `${JSON.stringify(results, null, 2)}\n`);
progress("results written to bench/results/latest.json");
