import type { ActiveView } from "@palimpsest/projections";
import { watchView } from "@palimpsest/projections/live";
import { compactRange, type Palimpsest } from "@palimpsest/runtime";
import { firstValueFrom, timeout } from "rxjs";
import { filter, take, tap, toArray } from "rxjs/operators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until, untilHeard } from "../contract/change-feed-probe.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`live view as an Observable (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("emits the current view, then a view after every commit, ending equal to the session's", async () => {
      const session = await runtime.startSession();
      await session.append({ id: "u0", role: "user", content: "hello" });
      const store = runtime.store;
      const seen: ActiveView[] = [];
      const done = firstValueFrom(
        watchView(store, session.id).pipe(
          tap((v) => seen.push(v)),
          filter((v) => v.viewVersion === 1),
          timeout(5_000),
        ),
      );
      await session.append({ id: "a0", role: "assistant", content: "hi" });
      await session.append([
        { id: "u1", role: "user", content: "more" },
        { id: "a1", role: "assistant", content: "sure" },
        { id: "u2", role: "user", content: "thanks" },
        { id: "a2", role: "assistant", content: "welcome" },
      ]);
      await compactRange(session, { fromId: "a0", toId: "u1", summary: "greetings exchanged" });
      const last = await done;
      expect(last).toEqual(session.view());
      expect(seen[0]?.messages[0]?.id).toBe("u0");
      expect(seen.at(-1)).toEqual(session.view());
      expect(seen.map((v) => v.lastSeq)).toEqual([...seen.map((v) => v.lastSeq)].sort((a, b) => a - b));
    });

    it("does not touch the state it starts from", async () => {
      const session = await runtime.startSession();
      await session.append({ id: "u0", role: "user", content: "hello" });
      const before = structuredClone(session.state);
      // The first view is the one caught up with the log: appended before it, a0 would be in it already.
      let caughtUp = () => {};
      const first = new Promise<void>((resolve) => {
        caughtUp = resolve;
      });
      const views = firstValueFrom(
        watchView(runtime.store, session.id, session.state).pipe(tap(caughtUp), take(2), toArray(), timeout(5_000)),
      );
      await first;
      await (await runtime.resume(session.id)).append({ id: "a0", role: "assistant", content: "hi" });
      expect((await views).map((v) => v.messages.length)).toEqual([1, 2]);
      expect(session.state).toEqual(before);
    });

    it("emits in another process's runtime when this one commits", async () => {
      const other = await backend.open();
      const session = await runtime.startSession();
      await session.append({ id: "u0", role: "user", content: "hello" });
      const seen: ActiveView[] = [];
      const watching = watchView(other.store, session.id).subscribe((v) => seen.push(v));
      try {
        await untilHeard(runtime.store, other.store);
        await session.append({ id: "a0", role: "assistant", content: "hi" });
        await until(() => seen.at(-1)?.messages.length === 2);
        expect(seen.map((v) => v.messages.length)).toEqual([1, 2]);
        expect(seen.at(-1)).toEqual(session.view());
      } finally {
        watching.unsubscribe();
      }
    });
  });
}
