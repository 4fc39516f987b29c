import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTranscript } from "@palimpsest/core";
import { importSessions, type Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realTranscriptFiles, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

const files = realTranscriptFiles();

for (const backend of runtimeBackends()) {
  describe.skipIf(!HAVE_TRANSCRIPTS || backend.skip !== undefined)(
    `a queued hand-off of every real transcript (${backend.name})`,
    () => {
      let runtime: Palimpsest;
      let worker: Palimpsest;
      beforeAll(async () => {
        await backend.setup();
        runtime = await backend.open();
        worker = await backend.open(); // the claiming process, on its own connections
      });
      afterAll(() => backend.dispose());

      it.each(files)(
        "%s: the successor's view is the source's, holds every invariant, and the source is sealed",
        async (file) => {
          const sessions = parseTranscript(readFileSync(join(TRANSCRIPTS_DIR, file), "utf8"), { fileName: file });
          const [first] = await importSessions(runtime, sessions.slice(0, 1));
          if (first === undefined) return;
          const source = await runtime.resume(first.sessionId);
          await runtime.handoffs.request(source, { reason: "real transcript" });
          const claim = await worker.handoffs.claim({ claimant: "worker", leaseMs: 60_000 });
          if (claim === undefined) throw new Error("nothing to claim");
          const successor = await worker.handoffs.complete(claim);
          expect(successor.view().messages).toEqual(source.view().messages);
          expect(successor.state.liveTokens).toBe(source.state.liveTokens);
          expect(viewProblems(successor, await worker.store.readStream(successor.id))).toEqual([]);
          const sealed = await runtime.resume(source.id);
          expect(sealed.resumeState().lineage.handedOffTo).toBe(successor.id);
          await expect(sealed.append({ role: "user", content: "too late" })).rejects.toMatchObject({
            code: "INVARIANT_VIOLATED",
          });
        },
      );
    },
  );
}
