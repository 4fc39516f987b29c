/**
 * The incremental fold equals a full fold from scratch. A fold keeps what it parsed and what each
 * session holds (MirrorFoldMemory) and reads only the entries stored since; these properties check
 * that nothing is lost by that:
 * - the parser: after every batch of lines, each thread's items (those handed out before, up to where
 *   the new ones start, then the new ones) equal parseClaudeCode of the lines so far, on real Claude Code
 *   transcripts and on lines whose assistant blocks come late (a merge into a message already built);
 * - the fold: one key folded batch by batch with the memory, and the same batches folded into another
 *   database by folds that read the whole key every time, write the same events to the same sessions.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ImportItem, IncrementalClaudeCode, type MirrorKey, mirrorUuidKey } from "@palimpsest/core";
import { parseClaudeCode } from "@palimpsest/core/testing";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { emptyFoldMemory, foldMirrorKey } from "@palimpsest/runtime/testing";
import { MirrorLog, openEventStore } from "@palimpsest/store";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { faultCount, faultSeed } from "../faults/fault-scale.ts";
import { HAVE_TRANSCRIPTS } from "../support/real-transcripts.ts";
import { claudeCodeSessions, jsonLines } from "./claude-code-files.ts";
import { TranscriptWriter, text, toolResult, toolUse } from "./claude-code-lines.ts";

const seed = faultSeed();
const files = claudeCodeSessions().flatMap((s) => (s.main === undefined ? [] : [s.main]));

/** Lines where a message's blocks come after other lines (tool results, another message) of its thread. */
function lateBlockLines(): Record<string, unknown>[] {
  const w = new TranscriptWriter();
  return [
    w.user("start"),
    w.assistant("msg_1", toolUse("t1", "Bash", { command: "ls" })),
    w.user([toolResult("t1", "a")]),
    w.assistant("msg_1", toolUse("t2", "Bash", { command: "pwd" })),
    w.user([toolResult("t2", "/")]),
    w.assistant("msg_2", text("done")),
    w.user("and again"),
    w.assistant("msg_1", text("a late block of an old message")),
    w.assistant("msg_3", text("ok")),
    { ...w.user("side task"), isSidechain: true, agentId: "a1" },
    { ...w.assistant("msg_a", text("side done")), isSidechain: true, agentId: "a1" },
    w.user("end"),
  ];
}

/** Cut points of `count` lines: the sorted distinct ends of the batches. */
function ends(count: number, sizes: readonly number[]): number[] {
  const out: number[] = [];
  let at = 0;
  for (const size of sizes) {
    at = Math.min(count, at + size);
    if (out.at(-1) !== at) out.push(at);
  }
  if (out.at(-1) !== count) out.push(count);
  return out;
}

/** Feeds `lines` to an incremental parser cut at `cuts`, comparing each thread with a full parse each time. */
function checkParser(lines: readonly Record<string, unknown>[], cuts: readonly number[], fileName: string): void {
  const parser = new IncrementalClaudeCode(fileName);
  const have = new Map<string, ImportItem[]>();
  const confirmed = new Map<string, number>();
  let read = 0;
  for (const cut of cuts) {
    for (; read < cut; read++) parser.read(lines[read], read + 1);
    const full = parseClaudeCode(
      lines
        .slice(0, cut)
        .map((l) => JSON.stringify(l))
        .join("\n"),
      { fileName },
    );
    const threads = parser.items((id) => confirmed.get(id) ?? 0);
    expect(threads.map((t) => t.session.externalId)).toEqual(full.map((s) => s.externalId));
    for (const [i, { session, start, final }] of threads.entries()) {
      const whole = [...(have.get(session.externalId) ?? []).slice(0, start), ...session.items];
      const { items, repairs: _r, ...rest } = full[i] ?? { items: [], repairs: undefined };
      const { items: _i, repairs: _s, ...mine } = session;
      expect(whole, `${session.externalId} after ${cut} lines`).toEqual(items);
      expect(mine).toEqual(rest);
      have.set(session.externalId, whole);
      confirmed.set(session.externalId, final);
    }
  }
}

describe(`the incremental parser equals parseClaudeCode after every batch (seed ${seed})`, () => {
  it("on lines whose assistant blocks come late, in every cut of one line at a time and at random", () => {
    const lines = lateBlockLines();
    checkParser(lines, ends(lines.length, Array(lines.length).fill(1)), "s.jsonl");
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 12 }), (sizes) =>
        checkParser(lines, ends(lines.length, sizes), "s.jsonl"),
      ),
      { numRuns: 200, seed },
    );
  });

  it.skipIf(!HAVE_TRANSCRIPTS)("on real Claude Code transcripts cut at random points (fast-check)", () => {
    const sources = files.map((path) => ({ path, lines: jsonLines(path) }));
    fc.assert(
      fc.property(
        fc.nat({ max: Math.max(0, sources.length - 1) }),
        fc.array(fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 9, max: 400 })), {
          minLength: 1,
          maxLength: 30,
        }),
        (index, sizes) => {
          const { path, lines } = sources[index] as (typeof sources)[number];
          checkParser(lines, ends(lines.length, sizes), path.split("/").pop() ?? "s.jsonl");
        },
      ),
      { numRuns: faultCount(10, 60), seed },
    );
  });
});

describe.skipIf(!HAVE_TRANSCRIPTS)(`a fold with memory writes what folds from scratch write (seed ${seed})`, () => {
  const dir = mkdtempSync(join(tmpdir(), "palimpsest-incremental-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let databases = 0;

  /** A store on a SQLite file of its own. */
  async function open() {
    const store = await openEventStore(join(dir, `db-${databases++}.db`));
    return { store, runtime: new Palimpsest({ store, counterFor: createTokenCounter }), log: new MirrorLog(store) };
  }

  it("the same events in the same sessions after every batch, settled or not", { timeout: 300_000 }, async () => {
    const sources = files.map((path) => jsonLines(path));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: Math.max(0, sources.length - 1) }),
        fc.array(fc.record({ size: fc.integer({ min: 1, max: 300 }), settle: fc.boolean() }), {
          minLength: 1,
          maxLength: 12,
        }),
        async (index, batches) => {
          const lines = [...lateBlockLines(), ...(sources[index] ?? [])];
          const [incremental, scratch] = [await open(), await open()];
          const key: MirrorKey = { project: "incremental", session: "s" };
          const memory = emptyFoldMemory();
          try {
            let at = 0;
            for (const { size, settle } of batches) {
              const batch = lines.slice(at, at + size).map((line) => ({
                text: JSON.stringify(line),
                uuid: typeof line.uuid === "string" ? mirrorUuidKey(line.uuid) : undefined,
              }));
              at += size;
              for (const side of [incremental, scratch]) await side.log.append(key, batch);
              await foldMirrorKey(incremental.runtime, incremental.log, key, { settle, memory });
              await foldMirrorKey(scratch.runtime, scratch.log, key, { settle });
              const ids = await scratch.log.sessionsIn(key, 0);
              expect(await incremental.log.sessionsIn(key, 0)).toEqual(ids);
              for (const id of ids) {
                const events = async (side: typeof scratch) =>
                  (await side.store.readStream(id)).map((e) => ({ type: e.type, data: e.data }));
                expect(await events(incremental), `session ${id}`).toEqual(await events(scratch));
              }
              if (at >= lines.length) break;
            }
          } finally {
            await incremental.runtime.close();
            await scratch.runtime.close();
          }
        },
      ),
      { numRuns: faultCount(6, 40), seed },
    );
  });
});
