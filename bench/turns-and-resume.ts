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

/**
 * One way's figures: how many turns were timed, their p50 and p99, the first resumes' median (the reader's
 * first read of the session), and the median of a second resume by the same reader, in ms.
 */
export interface TurnsAndResume {
  turns: number;
  p50TurnMs: number;
  p99TurnMs: number;
  resumeMs: number;
  againMs: number;
}

/** Times each variant's turns and resume (30 turns × 3 repetitions quick, else 100 × 7), in variant order. */
export async function alternateTurnsAndResume(
  variants: readonly RuntimeVariant[],
  quick: boolean,
): Promise<TurnsAndResume[]> {
  const turns = quick ? 30 : 100;
  const reps = quick ? 3 : 7;
  const times = variants.map(() => ({ turns: [] as number[], resumes: [] as number[], again: [] as number[] }));
  for (let rep = -1; rep < reps; rep++) {
    for (const [i, variant] of variants.entries()) {
      const { writer, reader } = await variant.open();
      try {
        const sessionId = `bench-${i}-${rep + 1}-${randomUUID()}`;
        const turnMs = await runTurns(writer, sessionId, turns);
        const [resumeMs, againMs] = [
          await timed(() => reader.resume(sessionId)),
          await timed(() => reader.resume(sessionId)),
        ];
        if (rep < 0) continue; // warm-up
        times[i]?.turns.push(...turnMs);
        times[i]?.resumes.push(resumeMs);
        times[i]?.again.push(againMs);
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
    againMs: median(t.again),
  }));
}

/** How long `work` takes, in ms. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}
