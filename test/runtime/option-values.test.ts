import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConversationCompactOptions, openConversation } from "@palimpsest/ai-sdk";
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { openAgentsSession } from "@palimpsest/openai-agents";
import {
  compact,
  importSessions,
  MirrorFolder,
  microBatch,
  microCompact,
  openPalimpsest,
  Palimpsest,
  recallTools,
  type Session,
} from "@palimpsest/runtime";
import { MirrorLog, openEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";

/** Casts a wrong value past the compiler, as a JavaScript caller (or a config file) passes it. */
const wrong = <T>(value: unknown): T => value as T;

describe("option values of the wrong kind are VALIDATION at their path, before anything is done", () => {
  let folder: string;
  let runtime: Palimpsest;
  let session: Session;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "palimpsest-options-"));
    runtime = await openPalimpsest({ url: join(folder, "kept.db") });
    session = await runtime.startSession({ model: "gpt-4o" });
    await session.append(exchange(0), { turnId: "t0", completeTurn: true });
  });
  afterAll(async () => {
    await runtime?.close();
    await rm(folder, { recursive: true, force: true });
  });

  /** A database file no refused opener may create. */
  const untouched = () => join(folder, `never-${Math.random().toString(36).slice(2)}.db`);

  const openers: [string, (url: string) => Promise<unknown>, string][] = [
    ["openPalimpsest", (url) => openPalimpsest({ url, sqliteBusyTimeoutMs: wrong("10") }), "sqliteBusyTimeoutMs"],
    ["openPalimpsest", (url) => openPalimpsest({ url, snapshotEvery: 0 }), "snapshotEvery"],
    ["openPalimpsest", (url) => openPalimpsest({ url, compaction: wrong("yes") }), "compaction"],
    ["openPalimpsest", (url) => openPalimpsest({ url, compaction: { auto: wrong("yes") } }), "compaction.auto"],
    ["openPalimpsest", (url) => openPalimpsest({ url, compaction: { contextWindow: -5 } }), "compaction.contextWindow"],
    ["openPalimpsest", (url) => openPalimpsest({ url, compaction: wrong({ autoo: true }) }), "compaction.autoo"],
    [
      "openPalimpsest",
      (url) => openPalimpsest({ url, compaction: { summarizer: wrong({}) } }),
      "compaction.summarizer",
    ],
    ["openPalimpsest", (url) => openPalimpsest({ url, compaction: { policy: wrong("sumary") } }), "compaction.policy"],
    ["openPalimpsest", (url) => openPalimpsest({ url, compaction: { profile: "antropic" } }), "compaction.profile"],
    ["openPalimpsest", (url) => openPalimpsest({ url, precompact: { softRatio: 3 } }), "precompact.softRatio"],
    ["openPalimpsest", (url) => openPalimpsest({ url, precompact: {} }), "precompact"],
    [
      "openPalimpsest",
      (url) => openPalimpsest({ url, compaction: { auto: false }, precompact: { debounceMs: 0 } }),
      "precompact",
    ],
    [
      "openPalimpsest",
      (url) => openPalimpsest({ url, compaction: { micro: { everyNTurns: wrong("2") } } }),
      "compaction.micro.everyNTurns",
    ],
    [
      "openPalimpsest",
      (url) => openPalimpsest({ url, compaction: { micro: wrong({ everyNTurn: 2 }) } }),
      "compaction.micro.everyNTurn",
    ],
    [
      "openPalimpsest",
      (url) => openPalimpsest({ url, compaction: { summarizerPrices: wrong({ input: "3" }) } }),
      "compaction.summarizerPrices.input",
    ],
    [
      "openPalimpsest",
      (url) => openPalimpsest({ url, compaction: { antiThrash: { strikes: wrong("x") } } }),
      "compaction.antiThrash.strikes",
    ],
    [
      "openPalimpsest",
      (url) => openPalimpsest({ url, compaction: { antiThrash: { cooldownMs: wrong({ refusd: 1 }) } } }),
      "compaction.antiThrash.cooldownMs.refusd",
    ],
    ["openPalimpsest", (url) => openPalimpsest({ url, onAfterTurnError: wrong("log") }), "onAfterTurnError"],
    ["openEventStore", (url) => openEventStore(url, { search: wrong("no") }), "search"],
    ["openEventStore", (url) => openEventStore(url, wrong({ tenat: "acme" })), "tenat"],
    ["openSessionStore", (url) => openSessionStore({ url, settleMs: wrong("10") }), "settleMs"],
    ["openSessionStore", (url) => openSessionStore({ url, foldDelayMs: -1 }), "foldDelayMs"],
    ["openSessionStore", (url) => openSessionStore({ url, onError: wrong(1) }), "onError"],
    ["openConversation", (url) => openConversation({ url, compaction: { auto: wrong("x") } }), "compaction.auto"],
    ["openConversation", (url) => openConversation({ url, contextWindow: wrong("64K") }), "contextWindow"],
    ["openAgentsSession", (url) => openAgentsSession({ url, compaction: wrong({ auto: true }) }), "compaction.auto"],
    ["openAgentsSession", (url) => openAgentsSession({ url, model: wrong(4) }), "model"],
    [
      "openConversation",
      (url) => openConversation({ url, compaction: { policy: wrong("cost-optimall") } }),
      "compaction.policy",
    ],
  ];

  for (const [fn, open, path] of openers) {
    it(`${fn} refuses a wrong ${path}, creating no database`, async () => {
      const url = untouched();
      const error = await rejection(open(url));
      expect(error.code).toBe("VALIDATION");
      expect(error.details).toMatchObject({ path });
      expect(error.message).toContain(fn);
      expect(existsSync(url)).toBe(false);
    });
  }

  it("an options argument that is no object is VALIDATION naming what was given", async () => {
    const error = await rejection(openPalimpsest(wrong(null)));
    expect(error).toMatchObject({ code: "VALIDATION", message: "openPalimpsest takes an options object, not null" });
  });

  it("startSession, append and compact refuse an unknown key or a wrong value, writing nothing", async () => {
    const before = await session.readLog();
    const refusals = [
      [await rejection(runtime.startSession(wrong({ modl: "gpt-4o" }))), "modl"],
      [await rejection(runtime.startSession({ settings: wrong({ microcompact: false }) })), "settings.microcompact"],
      [
        await rejection(runtime.startSession({ parent: wrong({ sessionId: session.id, relation: "fork", atseq: 1 }) })),
        "parent.atseq",
      ],
      [
        await rejection(runtime.startSession({ parent: { sessionId: "no-such-session", relation: "subagent" } })),
        "parent.sessionId",
      ],
      [await rejection(session.append(exchange(1), wrong({ turnid: "t1" }))), "turnid"],
      [await rejection(session.append(exchange(1), { turnId: wrong(7) })), "turnId"],
      [await rejection(compact(session, wrong({ forse: true }))), "forse"],
      [await rejection(compact(session, { force: wrong("yes") })), "force"],
      [await rejection(compact(session, { trigger: wrong("cron") })), "trigger"],
    ] as const;
    for (const [error, path] of refusals) {
      expect(error.code, path).toBe("VALIDATION");
      expect(error.details, path).toMatchObject({ path });
    }
    expect(await session.readLog()).toEqual(before);
    expect((await runtime.sessions()).map((s) => s.sessionId)).toEqual([session.id]);
  });

  it("an AI SDK conversation's compact refuses options it does not take, compacting nothing", async () => {
    const conversation = await openConversation({ runtime, sessionId: session.id });
    try {
      const before = await session.readLog();
      const refused: [ConversationCompactOptions, string][] = [
        [wrong("yes"), "(root)"],
        [wrong({ forse: true }), "forse"],
        [{ force: wrong(1) }, "force"],
      ];
      for (const [options, path] of refused) {
        const error = await rejection(conversation.compact(options));
        expect(error.code, path).toBe("VALIDATION");
        expect(error.details, path).toMatchObject({ path });
      }
      expect(await session.readLog()).toEqual(before);
    } finally {
      await conversation.close();
    }
  });

  it("microCompact, microBatch and precompaction.compact refuse what they do not take, compacting nothing", async () => {
    const precompacting = await openPalimpsest({
      url: ":memory:",
      compaction: { auto: true },
      precompact: { enabled: true },
    });
    try {
      const other = await precompacting.startSession({ model: "gpt-4o" });
      await other.append(exchange(0), { turnId: "t0", completeTurn: true });
      const precompaction = precompacting.precompaction;
      if (precompaction === undefined) throw new Error("pre-compaction is on: the runtime has a scheduler");
      const before = [await session.readLog(), await other.readLog()];
      const refusals: [() => Promise<unknown>, string][] = [
        [() => microCompact(session, { everyNTurns: wrong("2") }), "everyNTurns"],
        [() => microCompact(session, { maxAttempts: 0 }), "maxAttempts"],
        [() => microCompact(session, wrong({ tailToken: 10 })), "tailToken"],
        [() => microCompact(session, { trigger: wrong("cron") }), "trigger"],
        [() => microBatch(session, { times: wrong(5) }), "times"],
        [() => microBatch(session, { times: wrong({ nowMs: "now" }) }), "times.nowMs"],
        [() => compact(session, { times: wrong({ now: 1 }) }), "times.nowMs"],
        [() => microBatch(session, { defragLimitTokens: -1 }), "defragLimitTokens"],
        [() => precompaction.compact(other, { force: wrong("yes") }), "force"],
        [() => precompaction.compact(other, wrong({ candidates: {} })), "candidates"],
        [() => precompaction.compact(other, { keepDelta: wrong(1) }), "keepDelta"],
      ];
      for (const [call, path] of refusals) {
        const error = await rejection(call());
        expect(error.code, path).toBe("VALIDATION");
        expect(error.details, path).toMatchObject({ path });
      }
      expect([await session.readLog(), await other.readLog()]).toEqual(before);
    } finally {
      await precompacting.close();
    }
  });

  it("names a nested option's unknown key at its path, with the keys it takes", async () => {
    const error = await rejection(openPalimpsest({ url: untouched(), compaction: wrong({ autoo: true }) }));
    expect(error).toMatchObject({
      code: "VALIDATION",
      message: "unknown openPalimpsest compaction option: autoo",
      details: { path: "compaction.autoo" },
    });
    expect(JSON.stringify(error.details)).toContain("not one of policy, profile, contextWindow");
  });

  it("refuses a parent of another tenant's as it refuses one that names no session", async () => {
    const url = join(folder, "tenants.db");
    const [acme, globex] = [
      await openPalimpsest({ url, tenant: "acme" }),
      await openPalimpsest({ url, tenant: "globex" }),
    ];
    try {
      const theirs = await acme.startSession({ model: "gpt-4o" });
      const error = await rejection(globex.startSession({ parent: { sessionId: theirs.id, relation: "subagent" } }));
      expect(error).toMatchObject({ code: "VALIDATION", details: { path: "parent.sessionId" } });
      expect(await globex.sessions()).toEqual([]);
    } finally {
      await Promise.all([acme.close(), globex.close()]);
    }
  });

  it("takes precompact switched off without compaction.auto", async () => {
    const off = await openPalimpsest({ url: ":memory:", precompact: { enabled: false } });
    await off.close();
  });

  it("takes Infinity where it means never or no limit (snapshotEvery, contentionTimeoutMs)", async () => {
    const never = await openPalimpsest({
      url: ":memory:",
      snapshotEvery: Number.POSITIVE_INFINITY,
      contentionTimeoutMs: Number.POSITIVE_INFINITY,
    });
    await never.close();
  });

  it("erase, handoffs.request, recallTools, importSessions and MirrorFolder refuse what they do not take", async () => {
    const log = await session.readLog();
    const refusals: [() => unknown, string][] = [
      [() => runtime.erase(session.id, wrong({ reasn: "gdpr" })), "reasn"],
      [() => runtime.handoffs.request(session, { target: wrong(5) }), "target"],
      [() => recallTools(async () => session, wrong({ maxToken: 50 })), "maxToken"],
      [() => importSessions(runtime, [], { onProgress: wrong("x") }), "onProgress"],
      [() => new MirrorFolder(runtime, new MirrorLog(runtime.store), { settleMs: wrong("10") }), "settleMs"],
      [() => new Palimpsest(wrong({ counterFor: () => undefined })), "store"],
    ];
    for (const [call, path] of refusals) {
      const error = await rejection(Promise.resolve().then(call));
      expect(error.code, path).toBe("VALIDATION");
      expect(error.details, path).toMatchObject({ path });
    }
    expect(await session.readLog()).toEqual(log);
    expect(await runtime.handoffs.list()).toEqual([]);
  });

  it("says which keys an options object takes when one is unknown", async () => {
    const error = await rejection(session.append(exchange(1), wrong({ turnid: "t1" })));
    expect(error.message).toBe("unknown append option: turnid");
    expect(JSON.stringify(error.details)).toContain("not one of turnId, completeTurn, idempotencyKey");
  });
});
