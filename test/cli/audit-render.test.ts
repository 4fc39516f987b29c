/**
 * The audit tables' "aux in / out" cells: a count not recorded shows as `-` (not 0), and the cached share of
 * a group's totals is of the input of the compactions that recorded the cache's reads, not of all its input.
 */
import type { AuditedCompaction, CompactionTotals } from "@palimpsest/store";
import { describe, expect, it } from "vitest";
import { renderCompactions, renderTotals } from "../../packages/cli/src/commands/audit-render.ts";

/** A summary compaction whose summarizer's counts are `aux` (each null unless given). */
function compaction(aux: Partial<AuditedCompaction>): AuditedCompaction {
  return {
    sessionId: "0193a1b2-0000-7000-8000-000000000000",
    seq: 7,
    compactionId: "0193a1b2-0000-7000-8000-000000000001",
    occurredAt: "2026-12-07T06:00:00.000Z",
    mode: "summary",
    trigger: "manual",
    policy: "summary",
    profile: null,
    summarizerModel: "m",
    promptVersion: null,
    targets: 4,
    replacements: 1,
    tokensBefore: 900,
    tokensAfter: 300,
    tokensReclaimed: 600,
    auxTokensIn: null,
    auxTokensOut: null,
    auxTokensCacheRead: null,
    auxTokensCacheWrite: null,
    durationMs: null,
    ...aux,
  };
}

/** The last cell of the table's only row (the columns are padded with spaces). */
function auxOf(table: string): string {
  const row = table.split("\n")[1] ?? "";
  return row.split(/ {2,}/).at(-1) ?? "";
}

describe("the audit tables' summarizer token cells", () => {
  it("show `-` for the side a compaction did not record, and the cached share of the input it did", () => {
    expect(auxOf(renderCompactions([compaction({ auxTokensOut: 60 })]))).toBe("- / 60");
    expect(auxOf(renderCompactions([compaction({ auxTokensIn: 5_000 })]))).toBe("5000 / -");
    expect(auxOf(renderCompactions([compaction({})]))).toBe("-");
    const cached = compaction({ auxTokensIn: 5_000, auxTokensOut: 60, auxTokensCacheRead: 4_800 });
    expect(auxOf(renderCompactions([cached]))).toBe("5000 (96% cached) / 60");
  });

  it("give a group's cached share over the input of the compactions that recorded it", () => {
    // Right after an upgrade: 5,000 tokens in with 4,800 read from the cache, and 100,000 from before.
    const totals: CompactionTotals = {
      group: {},
      compactions: 2,
      sessions: 2,
      targets: 8,
      tokensBefore: 1_800,
      tokensAfter: 600,
      tokensReclaimed: 1_200,
      auxTokensIn: 105_000,
      auxTokensOut: 960,
      auxTokensCacheRead: 4_800,
      auxTokensInWithCacheRead: 5_000,
      auxTokensCacheWrite: 100,
      meanDurationMs: null,
    };
    const row = renderTotals([totals]).split("\n")[1] ?? "";
    expect(row).toContain("105000 (96% cached) / 960");
    expect(renderTotals([{ ...totals, auxTokensCacheRead: null, auxTokensInWithCacheRead: null }])).not.toContain(
      "cached",
    );
  });
});
