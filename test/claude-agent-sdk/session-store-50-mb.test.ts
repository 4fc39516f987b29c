/**
 * A 50 MB tool output through the SessionStore, on each engine: in `pnpm test:long` only (vitest.config.ts
 * LONG_ONLY), since on PostgreSQL it takes about 20 s of the README's test command alone. The rest of the
 * SessionStore contract (session-store.contract.ts) runs in `pnpm test`.
 */
import { describe, expect, it } from "vitest";
import { TranscriptWriter, toolResult, toolUse } from "./claude-code-lines.ts";
import { newKey } from "./contract-context.ts";
import {
  isolatedDatabases,
  postgresSessionStores,
  type SessionStoreBackend,
  sqliteSessionStores,
} from "./session-store-backends.ts";

for (const backend of [sqliteSessionStores, postgresSessionStores()] satisfies SessionStoreBackend[]) {
  describe(`PalimpsestSessionStore, a 50 MB tool output (${backend.name})`, () => {
    if (backend.skip !== undefined) {
      it.skip(`SKIPPED: ${backend.skip}`, () => {});
      return;
    }
    const fresh = isolatedDatabases(backend);
    it("gives a 50 MB tool output back exactly", { timeout: 240_000 }, async () => {
      const store = await (await fresh()).open();
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      const chunk = 'line of build output \u0000 ünïcödé 🧪 <|endoftext|> \\ " \n';
      const big = chunk.repeat(Math.ceil((50 * 1024 * 1024) / Buffer.byteLength(chunk))).slice(0, 50 * 1024 * 1024);
      const lines = [
        w.user("run the build"),
        w.assistant("msg_1", toolUse("toolu_1", "Bash", { command: "make" })),
        w.user([toolResult("toolu_1", big)]),
      ];
      await store.append(key, lines);
      const loaded = await store.load(key);
      const output = (loaded?.[2]?.message as { content: { content: string }[] } | undefined)?.content[0]?.content;
      expect(output?.length).toBe(big.length);
      expect(output === big).toBe(true);
      expect(loaded?.slice(0, 2)).toEqual(lines.slice(0, 2));
    });
  });
}
