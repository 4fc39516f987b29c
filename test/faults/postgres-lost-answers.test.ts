/**
 * Through a TCP proxy that cuts the connection under an append: after the server committed it (its answer
 * lost), before the server got it, or every time. The runtime finds out from the log whether the append
 * landed and appends again when it did not, so the caller gets the append's events (stored once, the
 * handle's state that of a fresh load) and a retryable STORAGE error only when every attempt failed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTranscript, StorageError, type TelemetryLine } from "@palimpsest/core";
import {
  callbackSink,
  compact,
  importSessions,
  type Palimpsest,
  type Session,
  TelemetryRecorder,
} from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange, toolStep } from "../support/exchange.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { type ProxiedRuntimes, proxiedRuntimes } from "../support/proxied-runtimes.ts";
import type { TcpProxy } from "../support/tcp-proxy.ts";
import { viewProblems } from "../support/view-invariants.ts";

const server = postgresServer();

/** Every append statement carries its prepared statement's name (see postgres-adapter.ts). */
const APPEND_MARKER = "palimpsest_append_";

/** A Claude Code transcript to import. */
const DEMO = readFileSync(join(import.meta.dirname, "../../examples/demo-session.jsonl"), "utf8");

/** The ids of the messages a log holds, in order. */
const idsOf = (log: readonly { type: string; data: unknown }[]) =>
  log.flatMap((e) => (e.type === "message.appended" ? [(e.data as { message: { id: string } }).message.id] : []));

/** The ids of exchanges `0..n-1`, in order. */
const exchangeIds = (n: number) => Array.from({ length: n }, (_, i) => exchange(i).map((m) => m.id)).flat();

describe.skipIf("skip" in server)("PostgreSQL faults: the connection cut under an append", () => {
  let runtimes: ProxiedRuntimes;
  let proxy: TcpProxy;
  let direct: Palimpsest;
  let proxied: Palimpsest;
  /** The telemetry lines of `proxied`'s after-turn passes (its micro pass writes one per completed turn). */
  const afterTurns: TelemetryLine[] = [];
  beforeAll(async () => {
    if ("skip" in server) return;
    runtimes = await proxiedRuntimes(server.url, "pglost", {
      compaction: { auto: true, micro: {}, policy: "summary", profile: "local", contextWindow: 64_000 },
      telemetry: new TelemetryRecorder({ sink: callbackSink((line) => void afterTurns.push(line)) }),
    });
    ({ proxy, direct, proxied } = runtimes);
  });
  afterAll(() => runtimes?.close());

  /** A session of `proxied` holding exchanges 0..n-1. */
  async function sessionWith(n: number): Promise<Session> {
    const session = await proxied.startSession({ contextWindow: 4_000, profile: "local" });
    for (let i = 0; i < n; i++) await session.append(exchange(i));
    return session;
  }

  /** The session's log, read without the proxy, after checking the handle against it: the view's invariants, and the state a fresh load folds. */
  async function consistentLog(session: Session) {
    const log = await direct.store.readStream(session.id);
    expect(viewProblems(session, log)).toEqual([]);
    expect(session.state).toEqual((await direct.resume(session.id)).state);
    return log;
  }

  for (const keyed of [true, false]) {
    it(`an append whose answer is lost after it committed resolves with its events, stored once (${keyed ? "keyed" : "unkeyed"})`, async () => {
      const session = await sessionWith(3);
      const lost = proxy.lost;
      proxy.loseNextAnswer(APPEND_MARKER);
      const events = await session.append(exchange(3), keyed ? { idempotencyKey: "lost-3" } : {});
      expect(proxy.lost).toBe(lost + 1);
      const log = await consistentLog(session);
      expect(idsOf(log)).toEqual(exchangeIds(4));
      expect(events).toEqual(log.slice(-4));
      if (keyed)
        expect((await session.append(exchange(3), { idempotencyKey: "lost-3" })).map((e) => e.seq)).toEqual(
          events.map((e) => e.seq),
        );
    });
  }

  it("messages without ids (each given a fresh one): the append whose answer is lost returns them, stored once", async () => {
    const session = await sessionWith(1);
    proxy.loseNextAnswer(APPEND_MARKER);
    const events = await session.append([
      { role: "user", content: "no id given" },
      { role: "assistant", content: "nor here" },
    ]);
    const log = await consistentLog(session);
    expect(idsOf(log)).toHaveLength(6);
    expect(events).toEqual(log.slice(-2));
    expect(idsOf(events)).toEqual(idsOf(log).slice(-2));
  });

  it("an append completing its turn whose answer is lost: the turn completed once, the after-turn check run once", async () => {
    const session = await sessionWith(0);
    const checks = () => afterTurns.filter((l) => l.sessionId === session.id).length;
    proxy.loseNextAnswer(APPEND_MARKER);
    const events = await session.append(toolStep(1, "output one"), { turnId: "t1", completeTurn: true });
    expect(events.map((e) => e.type)).toEqual([...Array(4).fill("message.appended"), "turn.completed"]);
    const log = await consistentLog(session);
    expect(log.filter((e) => e.type === "turn.completed")).toHaveLength(1);
    expect(events).toEqual(log.slice(-5));
    expect(checks()).toBe(1);
  });

  it("a compaction whose answer is lost resolves compacted, committed once", async () => {
    const session = await sessionWith(24);
    const basis = session.state.viewVersion;
    proxy.loseNextAnswer(APPEND_MARKER);
    const outcome = await compact(session, { policy: "summary", force: true });
    expect(outcome.status).toBe("compacted");
    expect(session.state.viewVersion).not.toBe(basis);
    const log = await consistentLog(session);
    expect(log.filter((e) => e.type === "messages.superseded")).toHaveLength(1);
  });

  it("an append whose request is lost before the server got it is appended again, once", async () => {
    const session = await sessionWith(3);
    const cut = proxy.lostRequests;
    proxy.loseNextRequests(APPEND_MARKER);
    const events = await session.append(exchange(3));
    expect(proxy.lostRequests).toBe(cut + 1);
    const log = await consistentLog(session);
    expect(idsOf(log)).toEqual(exchangeIds(4));
    expect(events).toEqual(log.slice(-4));
  });

  it("every attempt of an append cut: a retryable STORAGE error after three, nothing written; then it lands once", async () => {
    const session = await sessionWith(3);
    const before = await direct.store.readStream(session.id);
    const cut = proxy.lostRequests;
    proxy.loseNextRequests(APPEND_MARKER, 3);
    const failure = await session.append(exchange(3), { idempotencyKey: "cut-3" }).catch((error: unknown) => error);
    proxy.loseNextRequests(APPEND_MARKER, 0); // (left armed only when fewer attempts were made)
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).details).toMatchObject({ operation: "append", retryable: true });
    expect(proxy.lostRequests).toBe(cut + 3);
    expect(await consistentLog(session)).toEqual(before);

    await session.append(exchange(3), { idempotencyKey: "cut-3" });
    expect(idsOf(await consistentLog(session))).toEqual(exchangeIds(4));
  });

  it("the server unreachable: the append's retryable STORAGE error, nothing written; once it is back it lands once", async () => {
    const session = await sessionWith(3);
    const before = await direct.store.readStream(session.id);
    await proxy.goDown();
    let failure: unknown;
    try {
      failure = await session.append(exchange(3)).catch((error: unknown) => error);
    } finally {
      await proxy.comeUp();
    }
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).details).toMatchObject({ operation: "append", retryable: true });
    expect(await consistentLog(session)).toEqual(before);

    await session.append(exchange(3));
    expect(idsOf(await consistentLog(session))).toEqual(exchangeIds(4));
  });

  for (const lose of ["answer", "request"] as const) {
    it(`an import whose append's ${lose} is lost: created, every item stored once`, async () => {
      const [parsed] = parseTranscript(DEMO, { fileName: "demo-session.jsonl" });
      if (parsed === undefined) throw new Error("no session parsed");
      const source = { ...parsed, externalId: `lost-${lose}` };
      const { lost, lostRequests } = proxy;
      if (lose === "answer") proxy.loseNextAnswer(APPEND_MARKER);
      else proxy.loseNextRequests(APPEND_MARKER);
      const [result] = await importSessions(proxied, [source]);
      expect([proxy.lost - lost, proxy.lostRequests - lostRequests]).toEqual(lose === "answer" ? [1, 0] : [0, 1]);
      expect(result).toMatchObject({ created: true });
      const log = await direct.store.readStream(result?.sessionId ?? "");
      expect(idsOf(log)).toEqual(source.items.flatMap((i) => (i.kind === "message" ? [i.message.id] : [])));
      expect(viewProblems(await direct.resume(result?.sessionId ?? ""), log)).toEqual([]);
    });
  }

  it("a pre-compaction candidate's save and delete whose answers are lost: the store makes them again", async () => {
    const session = await sessionWith(1);
    const candidate = {
      key: {
        sessionId: session.id,
        lastMessageId: "r0",
        prefixHash: "a".repeat(64),
        systemPromptHash: "b".repeat(64),
        summarizerModel: "offline-extractive",
        promptVersion: "v1",
      },
      targets: ["u0", "a0", "t0"],
      summary: "Goal: answer question 0.",
      basisViewVersion: session.state.viewVersion,
      createdAt: Date.now(),
      summaryMs: 5,
    };
    const lost = proxy.lost;
    proxy.loseNextAnswer('insert into "precompaction_candidates"');
    expect(await proxied.store.saveCandidate(candidate)).toBe(true);
    expect(await direct.store.loadCandidate(session.id)).toEqual(candidate);
    proxy.loseNextAnswer('delete from "precompaction_candidates"');
    await proxied.store.deleteCandidate(session.id);
    expect(proxy.lost).toBe(lost + 2);
    expect(await direct.store.loadCandidate(session.id)).toBeUndefined();
  });

  it("a read: the store reads again, the caller gets the answer", async () => {
    const session = await sessionWith(3);
    const lostBefore = proxy.lost;
    proxy.loseNextAnswer('from "events" where "session_id" = $1 and "seq" >= $2');
    const log = await proxied.store.readStream(session.id);
    expect(proxy.lost).toBe(lostBefore + 1);
    expect(log).toEqual(await direct.store.readStream(session.id));
    expect(idsOf(log)).toEqual(exchangeIds(3));
  });
});
