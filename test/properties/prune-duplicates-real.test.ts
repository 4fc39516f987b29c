import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Message, parseTranscript } from "@palimpsest/core";
import { danglingDuplicateStubs, duplicateReference } from "@palimpsest/core/testing";
import { compact, type Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realTranscriptFiles, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

const files = realTranscriptFiles();
/** A forced prune-first pass after each of this many slices of every session (so later passes see earlier stubs). */
const SLICES = 4;

for (const backend of runtimeBackends()) {
  describe.skipIf(!HAVE_TRANSCRIPTS || backend.skip !== undefined)(
    `prune-first on real transcripts leaves no dangling duplicate stub (${backend.name})`,
    () => {
      let runtime: Palimpsest;
      const seen = { prunes: 0, pointers: 0 };
      beforeAll(async () => {
        await backend.setup();
        runtime = await backend.open();
      });
      afterAll(async () => {
        await backend.dispose();
        // The shared transcripts hold repeated outputs: the property must have been exercised.
        if (HAVE_TRANSCRIPTS) expect(seen.pointers).toBeGreaterThan(0);
      });

      it.each(files)("%s: after every forced prune, each duplicate stub names a live, whole result", async (file) => {
        const sessions = parseTranscript(readFileSync(join(TRANSCRIPTS_DIR, file), "utf8"), { fileName: file });
        for (const imported of sessions) {
          const messages = imported.items.flatMap((i): Message[] => (i.kind === "message" ? [i.message] : []));
          const session = await runtime.startSession(imported.model === undefined ? {} : { model: imported.model });
          const size = Math.ceil(messages.length / SLICES);
          for (let from = 0; from < messages.length; from += size) {
            await session.append(messages.slice(from, from + size));
            const outcome = await compact(session, { policy: "prune-first", force: true });
            if (outcome.status !== "compacted" || outcome.plan.kind !== "prune") continue;
            seen.prunes += 1;
            seen.pointers += outcome.plan.replacements.filter(
              (r) => duplicateReference(r.message) !== undefined,
            ).length;
            expect(danglingDuplicateStubs(session.state.live), `${file} ${imported.externalId}`).toEqual([]);
          }
        }
      });
    },
  );
}
