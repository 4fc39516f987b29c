import { afterEach, describe, expect, it, vi } from "vitest";

const EVENT_TYPES = "../../src/events/event-types.ts";

/**
 * Loads a fresh copy of core in which `turn.completed` is at a fake version 2, lifted from 1 by
 * `upcaster` when one is given, without leaking into the real module graph (or any other test).
 */
async function coreWithTurnV2(upcaster?: (data: unknown) => unknown) {
  vi.resetModules();
  vi.doMock(EVENT_TYPES, async (importOriginal) => {
    const original = await importOriginal<typeof import("../../src/events/event-types.ts")>();
    return {
      ...original,
      EVENT_KINDS: {
        ...original.EVENT_KINDS,
        "turn.completed": {
          ...original.EVENT_KINDS["turn.completed"],
          version: 2,
          ...(upcaster === undefined ? {} : { upcasters: [upcaster] }),
        },
      },
    };
  });
  return import("@palimpsest/core");
}

type Core = typeof import("@palimpsest/core");

/**
 * Expects `fn` to throw a VALIDATION error of `core`'s own copy of the error classes (a fresh module
 * graph has its own classes, so `instanceof` against the test's import would fail). Returns its issues'
 * messages, each after its path when it has one (`path: message`).
 */
function expectValidation(core: Core, fn: () => unknown): readonly string[] {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(core.isPalimpsestError(thrown, "VALIDATION")).toBe(true);
  const { issues } = (thrown as InstanceType<Core["ValidationError"]>).details;
  return issues.map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`));
}

const v1Raw = {
  eventId: "e1",
  sessionId: "s1",
  seq: 4,
  position: 40,
  type: "turn.completed",
  schemaVersion: 1,
  occurredAt: "2025-01-01T00:00:00.000Z",
  tenantId: "default",
  data: { id: "t1", prompt: 12 },
};

afterEach(() => {
  vi.doUnmock(EVENT_TYPES);
  vi.resetModules();
});

describe("upcast", () => {
  it("lifts v1 data through the kind's upcaster, then validates it at v2", async () => {
    const core = await coreWithTurnV2((data) => {
      const { id, prompt } = data as { id: string; prompt: number };
      return { turnId: id, usage: { promptTokens: prompt } };
    });
    const event = core.parseStoredEvent(v1Raw);
    expect(event).toMatchObject({
      type: "turn.completed",
      schemaVersion: 2,
      seq: 4,
      position: 40,
      data: { turnId: "t1", usage: { promptTokens: 12 } },
    });
    expect(core.upcast("turn.completed", 2, { turnId: "t2" })).toEqual({ turnId: "t2" });
    expect(expectValidation(core, () => core.upcast("turn.completed", 3, {}))).toEqual([
      "upgrade palimpsest to read this log",
    ]);
  });

  it("rejects v1 data when the 1→2 step is missing", async () => {
    const core = await coreWithTurnV2();
    expect(expectValidation(core, () => core.parseStoredEvent(v1Raw))).toEqual([
      'add one to EVENT_KINDS["turn.completed"].upcasters',
    ]);
  });

  it("rejects data the upcaster leaves invalid", async () => {
    const core = await coreWithTurnV2((data) => data);
    expect(expectValidation(core, () => core.parseStoredEvent(v1Raw))[0]).toMatch(/^turnId: /);
  });

  it("leaves the real event kinds untouched: there, version 2 is newer than the code", async () => {
    const core = await import("@palimpsest/core");
    expect(core.EVENT_KINDS["turn.completed"].version).toBe(1);
    expect(expectValidation(core, () => core.upcast("turn.completed", 2, {}))).toEqual([
      "upgrade palimpsest to read this log",
    ]);
    expect(core.upcast("turn.completed", 1, { turnId: "t" })).toEqual({ turnId: "t" });
  });
});
