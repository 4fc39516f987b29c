import { AuditReadModels } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSessionId, started } from "../contract/fixtures.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { postgresBackend, type StoreBackend, type TestStore } from "../support/store-backends.ts";

const server = postgresServer();

describe.skipIf("skip" in server)("audit catch-up and PostgreSQL's visibility barrier", () => {
  let backend: StoreBackend;
  let store: TestStore;
  beforeAll(async () => {
    backend = await postgresBackend((server as { url: string }).url);
    store = await backend.open();
  });
  afterAll(() => backend.dispose());

  it("waits for a commit hidden behind an older open transaction, and says when it waited in vain", async () => {
    const audit = new AuditReadModels(store, { catchUpOnRead: false });
    await audit.catchUp();
    const held = await backend.holdOpenAppend?.(newSessionId("held"));
    if (held === undefined) throw new Error("postgres backend holds appends");
    const sid = newSessionId("hidden");
    await store.append(sid, [started()], { expectedVersion: "no-stream" }); // committed, but behind the barrier
    const blocked = await audit.catchUp({ visibilityWaitMs: 50 });
    expect(blocked).toMatchObject({ complete: false, events: 0 });
    const waiting = audit.catchUp({ visibilityWaitMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await held.commit();
    const done = await waiting;
    expect(done.complete).toBe(true);
    expect(done.events).toBe(2);
    expect((await audit.lineage(sid)).session.sessionId).toBe(sid);
  });
});
