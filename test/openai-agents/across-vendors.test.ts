/**
 * Claude Code sessions continued as OpenAI Agents SDK sessions: each real transcript of the shared
 * folder imported, handed off portably (reasoning and metadata dropped, counted on the seal), opened
 * with `openAgentsSession({ sessionId: successor })`, and run one more turn by the Runner: every item
 * pairs calls with results, and the model input passes the SDK's own schema.
 */
import { type AgentInputItem, protocol } from "@openai/agents-core";
import { assistantMessage, ScriptedModel } from "@openai/agents-core/testing";
import { openAgentsSession } from "@palimpsest/openai-agents";
import { importSessions, openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realSessions, realTranscriptFiles } from "../support/real-transcripts.ts";
import { inputItems, inputProblems, scripted } from "./agents-harness.ts";
import { engines } from "./engines.ts";

const files = realTranscriptFiles().filter((f) => f.startsWith("claude-code/"));
if (HAVE_TRANSCRIPTS && files.length === 0) throw new Error("the shared transcripts hold no claude-code folder");

/** Results whose call is not before them in `items` (the SDK never drops those: the provider would refuse them). */
function orphanResults(items: readonly AgentInputItem[]): string[] {
  const calls = new Set<string>();
  const orphans: string[] = [];
  for (const item of items) {
    const fields = item as { type?: string; callId?: string };
    if (fields.callId === undefined) continue;
    if (/_result$|_output$/.test(String(fields.type))) {
      if (!calls.has(fields.callId)) orphans.push(fields.callId);
    } else calls.add(fields.callId);
  }
  return orphans;
}

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined || !HAVE_TRANSCRIPTS)(
    `Claude Code sessions continued by the Runner (${engine.name})`,
    () => {
      let runtime: Palimpsest;
      let drop: () => Promise<void>;
      beforeAll(async () => {
        const database = await engine.create();
        drop = database.drop;
        runtime = await openPalimpsest({ url: database.url });
      });
      afterAll(async () => {
        await runtime?.close();
        await drop?.();
      });

      for (const file of files) {
        it(`${file}: handed off portably, its items are a valid next input`, async () => {
          const results = await importSessions(runtime, realSessions(file), { file });
          expect(results.length).toBeGreaterThan(0);
          for (const imported of results) {
            const byName = await openAgentsSession({ runtime, sessionId: imported.externalId });
            expect(await byName.getSessionId()).toBe(imported.sessionId);
            const from = await runtime.resume(imported.sessionId);
            const reasoning = from.view().messages.filter((m) => m.reasoning !== undefined).length;
            const successor = await runtime.handOff(from, { portable: true });
            const sealed = (await runtime.store.readStream(from.id)).at(-1);
            expect(sealed?.type).toBe("session.handed-off");
            const dropped = (sealed?.data as { dropped?: { reasoning: number } } | undefined)?.dropped;
            if (reasoning > 0) expect(dropped?.reasoning).toBe(reasoning);

            const session = await openAgentsSession({ runtime, sessionId: successor.id });
            const items = await session.getItems();
            expect(items.length).toBeGreaterThan(0);
            expect(orphanResults(items)).toEqual([]);
            for (const item of items) expect(protocol.ModelItem.safeParse(item).success).toBe(true);
            expect(JSON.stringify(items)).not.toContain('"signature"');

            const model = new ScriptedModel([[assistantMessage("continuing here")]]);
            const { agent, runner } = scripted(model);
            const result = await runner.run(agent, "Carry on where you left off.", { session });
            expect(result.finalOutput).toBe("continuing here");
            const input = inputItems(model.lastCall?.request.input ?? []);
            expect(inputProblems(input)).toEqual([]);
            expect(input.length).toBeGreaterThan(1);
            await session.close();
            expect(session.runtime).toBe(runtime);
          }
        });
      }
    },
  );
}
