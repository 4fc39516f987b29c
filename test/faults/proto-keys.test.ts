/**
 * An own `__proto__` key (what JSON.parse makes of `"__proto__": …`) in a message's metadata or reasoning
 * is kept byte for byte through append, the log, a snapshot, a replay, a fork and a hand-off; one in a
 * content part is VALIDATION at its path. Nothing ever reaches Object.prototype.
 */
import type { Message } from "@palimpsest/core";
import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

/** Metadata with own `__proto__` keys at the top and nested, in an array too, as a JSON client sends it. */
const METADATA_JSON =
  '{"__proto__":{"polluted":"top"},"source":{"__proto__":{"polluted":"nested"},"id":"x"},"list":[{"__proto__":[1,2]}],"last":true}';
const REASONING_JSON = '{"type":"thinking","__proto__":{"polluted":"reasoning"},"signature":"sig"}';

/** True when nothing was added to Object.prototype (what a pollution would do). */
function prototypeClean(): boolean {
  const probe: Record<string, unknown> = {};
  return (
    probe.polluted === undefined && Object.getOwnPropertyNames(Object.prototype).every((key) => key !== "polluted")
  );
}

/** Asserts `message` holds the metadata and reasoning exactly as sent: the own keys, and the JSON text. */
function expectKept(message: Message | undefined): void {
  const metadata = message?.metadata as Record<string, unknown>;
  expect(Object.hasOwn(metadata, "__proto__")).toBe(true);
  expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
  expect(Object.hasOwn(metadata.source as object, "__proto__")).toBe(true);
  expect(JSON.stringify(metadata)).toBe(METADATA_JSON);
  expect(JSON.stringify(message?.reasoning)).toBe(REASONING_JSON);
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`own __proto__ keys (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open({ snapshotEvery: 1 });
    });
    afterEach(() => expect(prototypeClean()).toBe(true));
    afterAll(() => backend.dispose());

    it("keeps them in metadata and reasoning: view, log, snapshot, replay, fork and hand-off", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append([
        {
          id: "u",
          role: "user",
          content: "hi",
          reasoning: JSON.parse(REASONING_JSON),
          metadata: JSON.parse(METADATA_JSON),
        },
        {
          id: "a",
          role: "assistant",
          content: "hello",
          reasoning: JSON.parse(REASONING_JSON),
          metadata: JSON.parse(METADATA_JSON),
        },
      ]);
      for (const message of session.view().messages) expectKept(message);

      // Another runtime resumes it from its snapshot (written in the background), then from the log alone.
      await runtime.settled();
      const other = await backend.open();
      expect((await other.store.loadSnapshot(session.id))?.seq).toBe(session.state.lastSeq);
      for (const message of (await other.resume(session.id)).view().messages) expectKept(message);
      await other.store.deleteSnapshot(session.id);
      const resumed = await other.resume(session.id);
      for (const message of resumed.view().messages) expectKept(message);
      for (const event of await other.store.readStream(session.id)) {
        if (event.type === "message.appended") expectKept(event.data.message);
      }

      const fork = await other.fork(session.id, {});
      for (const message of fork.view().messages) expectKept(message);
      const successor = await other.handOff(resumed);
      for (const message of (await (await backend.open()).resume(successor.id)).view().messages) expectKept(message);
    });

    it("refuses one in a content part with VALIDATION at its path, storing nothing", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      const part = JSON.parse('{"type":"text","text":"hi","__proto__":{"polluted":"part"}}');
      const error = await rejection(session.append({ role: "user", content: [part] }));
      expect(error.code).toBe("VALIDATION");
      expect((error.details as { path?: string }).path).toBe("messages[0].content[0].__proto__");
      expect(await runtime.store.readStream(session.id)).toHaveLength(1);
    });
  });
}
