import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseTranscript } from "@palimpsest/core";
import { importSessions, type Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

/** Two real Claude Code sessions, each with one compaction, recorded on different days. */
const FILES = [
  "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl", // 2026-02-11
  "claude-code/spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", // 2026-02-12
];

/** The `timestamp` of every user or assistant line, by uuid (what an imported message's time must be). */
function lineTimes(text: string): Map<string, string> {
  const times = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const value = JSON.parse(line) as { uuid?: string; timestamp?: string; message?: { id?: string } };
    if (value.uuid === undefined || value.timestamp === undefined) continue;
    const at = new Date(value.timestamp).toISOString();
    times.set(value.uuid, at);
    const id = value.message?.id; // merged assistant lines: the first line's time
    if (id !== undefined && !times.has(id)) times.set(id, at);
  }
  return times;
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined || !HAVE_TRANSCRIPTS)(
    `imports keep the source's times (${backend.name})`,
    () => {
      let runtime: Palimpsest;
      beforeAll(async () => {
        await backend.setup();
        runtime = await backend.open();
      });
      afterAll(() => backend.dispose());

      it("stores each event at its transcript time, records the write beside it, and audits by the transcript's days", async () => {
        const before = new Date().toISOString();
        for (const file of FILES) {
          const text = readFileSync(join(TRANSCRIPTS_DIR, file), "utf8");
          const times = lineTimes(text);
          const [main] = parseTranscript(text, { fileName: basename(file) });
          if (main === undefined) throw new Error(`${file}: no session`);
          const [result] = await importSessions(runtime, [main]);
          const events = await runtime.store.readStream(result?.sessionId ?? "");
          const messages = events.flatMap((e) => (e.type === "message.appended" ? [e] : []));
          expect(messages.length).toBeGreaterThan(50);
          let checked = 0;
          for (const event of messages) {
            const source = times.get(event.data.message.id);
            if (source === undefined) continue; // a repair (synthetic result) takes the time before it
            expect(event.occurredAt, event.data.message.id).toBe(source);
            checked++;
          }
          expect(checked).toBeGreaterThan(messages.length * 0.9);
          for (const event of events) {
            expect(event.occurredAt < before).toBe(true);
            expect((event.recordedAt ?? "") >= before).toBe(true);
          }
          const started = events[0];
          expect(started?.occurredAt).toBe(messages[0]?.occurredAt);
        }
        const audit = new AuditReadModels(runtime.store);
        const byDay = await audit.compactionTotals({}, ["day"]);
        expect(byDay.map((t) => [t.group.day, t.compactions])).toEqual([
          ["2026-02-11", 1],
          ["2026-02-12", 1],
        ]);
      });
    },
  );
}
