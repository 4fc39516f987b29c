/**
 * The measurement tenant-rls and encryption share: the turns of session-append's runTurns and a resume
 * of the session they wrote, through each of several ways of opening the runtime, alternated repetition
 * by repetition after a warm-up, so that the machine's drift falls on every way alike.
 */
import { randomUUID } from "node:crypto";
import type { Palimpsest } from "@palimpsest/runtime";
import { runTurns } from "./session-append.ts";
import { median, percentile } from "./stats.ts";

/** One way of opening: the runtime that writes the turns, and the one that resumes (the same, or its own). */
export interface RuntimeVariant {
  open(): Promise<{ writer: Palimpsest; reader: Palimpsest }>;
}

/** One way's figures: how many turns were timed, their p50 and p99, and the resumes' median, in ms. */
export interface TurnsAndResume {
  turns: number;
  p50TurnMs: number;
  p99TurnMs: number;
  resumeMs: number;
}

/** Times each variant's turns and resume (30 turns × 3 repetitions quick, else 100 × 7), in variant order. */
export async function alternateTurnsAndResume(
  variants: readonly RuntimeVariant[],
  quick: boolean,
): Promise<TurnsAndResume[]> {
  const turns = quick ? 30 : 100;
  const reps = quick ? 3 : 7;
  const times = variants.map(() => ({ turns: [] as number[], resumes: [] as number[] }));
  for (let rep = -1; rep < reps; rep++) {
    for (const [i, variant] of variants.entries()) {
      const { writer, reader } = await variant.open();
      try {
        const sessionId = `bench-${i}-${rep + 1}-${randomUUID()}`;
        const turnMs = await runTurns(writer, sessionId, turns);
        const start = performance.now();
        await reader.resume(sessionId);
        const resumeMs = performance.now() - start;
        if (rep < 0) continue; // warm-up
        times[i]?.turns.push(...turnMs);
        times[i]?.resumes.push(resumeMs);
      } finally {
        await writer.close();
        if (reader !== writer) await reader.close();
      }
    }
  }
  return times.map((t) => ({
    turns: t.turns.length,
    p50TurnMs: percentile(t.turns, 0.5),
    p99TurnMs: percentile(t.turns, 0.99),
    resumeMs: median(t.resumes),
  }));
}
