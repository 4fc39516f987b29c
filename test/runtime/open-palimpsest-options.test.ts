import type { TelemetryLine } from "@palimpsest/core";
import { callbackSink, openPalimpsest, PrecompactionScheduler, TelemetryRecorder } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, engineDatabases } from "../cli/harness.ts";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";

const databases = engineDatabases();

for (const [name, open, skip] of databases) {
  describe.skipIf(skip !== undefined)(`openPalimpsest options (${name})`, () => {
    let db: CliDatabase;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(() => db?.dispose());

    it("writes telemetry to the recorder it is given", async () => {
      const lines: TelemetryLine[] = [];
      const telemetry = new TelemetryRecorder({ sink: callbackSink((line) => void lines.push(line)) });
      const palimpsest = await openPalimpsest({ url: db.url, compaction: { micro: {} }, telemetry });
      try {
        const session = await palimpsest.startSession({ model: "gpt-4o" });
        await session.append(exchange(0), { turnId: "t0" });
        await session.completeTurn("t0");
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ sessionId: session.id, kind: "micro" });
      } finally {
        await palimpsest.close();
      }
    });

    it("turns background pre-compaction on when `precompact` is given", async () => {
      const on = await openPalimpsest({ url: db.url, compaction: { auto: true }, precompact: {} });
      const off = await openPalimpsest({ url: db.url });
      try {
        expect(on.precompaction).toBeInstanceOf(PrecompactionScheduler);
        expect(on.precompaction?.stats()).toBeDefined();
        expect(off.precompaction).toBeUndefined();
      } finally {
        await Promise.all([on.close(), off.close()]);
      }
    });

    it("refuses a URL that is no string or no database URL with VALIDATION at `url`, naming the forms", async () => {
      for (const url of [5, {}, "mysql://x/y", ""]) {
        const error = await rejection(openPalimpsest({ url } as unknown as { url: string }));
        expect(error.code, String(url)).toBe("VALIDATION");
        expect(error.details).toMatchObject({ path: "url" });
        expect(JSON.stringify(error.details)).toContain("postgres://");
      }
      expect((await rejection(openPalimpsest({ url: 5 as unknown as string }))).message).toBe(
        "the database URL must be a string, not a number",
      );
    });

    it("refuses unknown options: a type error, and VALIDATION at run time naming each", async () => {
      // @ts-expect-error `telemetery` is not an option (the options type is exact)
      const error = await rejection(openPalimpsest({ url: db.url, telemetery: {}, precompaction: {} }));
      expect(error.code).toBe("VALIDATION");
      expect(error.message).toContain("telemetery, precompaction");
      expect(error.details).toMatchObject({ path: "telemetery" });
    });
  });
}
