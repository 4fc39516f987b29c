import { replayTranscript } from "@palimpsest/eval";
import { describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realSessions, realTranscriptFiles } from "../support/real-transcripts.ts";

/** Every Claude Code transcript (they carry real usage): the main sessions of a session file, a subagent file whole. */
const FILES = realTranscriptFiles().filter((f) => f.startsWith("claude-code/"));

/**
 * The session whose usage shows the fixed prefix change under a live cache (BENCHMARKS.md, "The cache model against real usage"): before
 * request 32 (index 31), after a background task's notification 158 s after the previous request, the
 * provider read only 21,460 tokens of the 25,871-token prefix and wrote the 89,928-token conversation
 * again; the same after its own compaction and after a second notification. Modelled as prefix resets.
 */
const PREFIX_CHANGES = { file: "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl", resets: 3 };

describe.skipIf(!HAVE_TRANSCRIPTS)("the cache model against the real usage of every Claude Code transcript", () => {
  it("finds the Claude Code transcripts", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(15);
  });

  for (const file of FILES) {
    it(`${file}: cache reads, writes and cost of the uncompacted transcript within 10% of the real ones`, {
      timeout: 120_000,
    }, async () => {
      const parsed = realSessions(file);
      const subagent = file.includes("/subagents/");
      const sessions = subagent ? parsed : parsed.filter((s) => s.parentExternalId === undefined);
      const replay = await replayTranscript(sessions, { policies: ["none"], contextWindow: 200_000 });
      const usage = replay.usageComparison;
      expect(usage).not.toBeNull();
      if (usage === null || usage.cost === null) throw new Error("no usage compared");
      expect(usage.turns).toBeGreaterThan(0);
      expect(usage.cacheRead.ratio).toBeGreaterThanOrEqual(0.9);
      expect(usage.cacheRead.ratio).toBeLessThanOrEqual(1.1);
      expect(usage.cost.ratio).toBeGreaterThanOrEqual(0.9);
      expect(usage.cost.ratio).toBeLessThanOrEqual(1.1);
      expect(usage.cacheWrite.ratio).toBeGreaterThanOrEqual(0.9);
      expect(usage.cacheWrite.ratio).toBeLessThanOrEqual(1.1);
      if (file === PREFIX_CHANGES.file) expect(replay.cacheModel[0]?.prefixResets).toBe(PREFIX_CHANGES.resets);
      // Each session says how it was calibrated: fitted on its usage, with the lifetime its usage shows.
      for (const s of replay.cacheModel) {
        expect(s.timed).toBe(true);
        expect(s.ttlSource).toBe("usage");
        expect(s.fixedPrefixSource).toBe("usage");
        expect(s.fixedPrefixTokens).toBeGreaterThan(0);
      }
    });
  }
});
