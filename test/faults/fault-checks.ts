import { isDeepStrictEqual } from "node:util";
import {
  encodeState,
  foldEvents,
  initialState,
  type Keyring,
  type SessionState,
  type StoredEvent,
} from "@palimpsest/core";
import { Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels, type OpenedEventStore, openEventStore } from "@palimpsest/store";
import { Database } from "../support/sqlite-driver.ts";
import { viewProblems } from "../support/view-invariants.ts";
import { cheapCounter } from "./fault-workload.ts";
import { searchIndexProblems } from "./search-index-check.ts";

/** What workers reported as done (the API call returned): each must be in the log exactly once. */
export interface Acknowledged {
  /** Session id → message ids appended. */
  messages: Map<string, Set<string>>;
  /** Compaction id → its session. */
  compactions: Map<string, string>;
  /** Session id → turn ids completed. */
  turns: Map<string, Set<string>>;
  /** Source session id → successor id. */
  handoffs: Map<string, string>;
}

/** An empty record of acknowledgements. */
export function acknowledged(): Acknowledged {
  return { messages: new Map(), compactions: new Map(), turns: new Map(), handoffs: new Map() };
}

/** Adds `values` to the set kept under `key`. */
export function addTo(map: Map<string, Set<string>>, key: string, values: Iterable<string>): void {
  const set = map.get(key) ?? new Set<string>();
  for (const value of values) set.add(value);
  map.set(key, set);
}

/** What one check of a database found: problems by kind (lost, duplicated, invalid) and what it read. */
export interface CheckReport {
  lost: string[];
  duplicated: string[];
  invalid: string[];
  sessions: number;
  events: number;
}

/** How many times each value occurs. */
function counts(values: Iterable<string>): Map<string, number> {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  return n;
}

/** The fields in which two states differ, compared as a snapshot encodes them (Maps and Sets as lists). */
export function stateDifferences(a: SessionState, b: SessionState): string[] {
  const left = JSON.parse(encodeState(a).state) as Record<string, unknown>;
  const right = JSON.parse(encodeState(b).state) as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].filter((k) => !isDeepStrictEqual(left[k], right[k]));
}

/** Problems of one log read on its own: gapless seqs, unique appends, and every compaction all or nothing. */
function logProblems(sessionId: string, log: readonly StoredEvent[]): { duplicated: string[]; invalid: string[] } {
  const duplicated: string[] = [];
  const invalid: string[] = [];
  log.forEach((e, i) => {
    if (e.seq !== i + 1) invalid.push(`${sessionId}: seq ${e.seq} at position ${i + 1}`);
  });
  const appended = counts(log.flatMap((e) => (e.type === "message.appended" ? [e.data.message.id] : [])));
  for (const [id, n] of appended) if (n > 1) duplicated.push(`${sessionId}: message ${id} appended ${n} times`);
  const turns = counts(log.flatMap((e) => (e.type === "turn.completed" ? [e.data.turnId] : [])));
  for (const [id, n] of turns) if (n > 1) duplicated.push(`${sessionId}: turn ${id} completed ${n} times`);
  const state = initialState(sessionId);
  for (const event of log) {
    const before = new Set(state.live.map((e) => e.message.id));
    foldEvents(state, [event]);
    const after = new Set(state.live.map((e) => e.message.id));
    if (event.type === "messages.superseded") {
      const { compactionId, targets, replacements } = event.data;
      const whole =
        targets.every((t) => before.has(t) && !after.has(t)) && replacements.every((r) => after.has(r.message.id));
      if (!whole) invalid.push(`${sessionId}: compaction ${compactionId} at seq ${event.seq} is not all there`);
    }
    if (event.type === "compaction.failed" && [...before].join() !== [...after].join()) {
      invalid.push(`${sessionId}: compaction.failed at seq ${event.seq} changed the view`);
    }
  }
  return { duplicated, invalid };
}

/** Problems of the acknowledgements against the logs read: missing (lost) or there more than once. */
function acknowledgedProblems(acked: Acknowledged, logs: ReadonlyMap<string, readonly StoredEvent[]>) {
  const lost: string[] = [];
  const duplicated: string[] = [];
  const countIn = (sessionId: string, pick: (e: StoredEvent) => string | undefined) =>
    counts((logs.get(sessionId) ?? []).flatMap((e) => pick(e) ?? []));
  const expectOnce = (what: string, n: number | undefined) => {
    if (n === undefined) lost.push(what);
    else if (n > 1) duplicated.push(`${what} ×${n}`);
  };
  for (const [sessionId, ids] of acked.messages) {
    const appended = countIn(sessionId, (e) => (e.type === "message.appended" ? e.data.message.id : undefined));
    for (const id of ids) expectOnce(`${sessionId}: acknowledged message ${id}`, appended.get(id));
  }
  for (const [sessionId, ids] of acked.turns) {
    const completed = countIn(sessionId, (e) => (e.type === "turn.completed" ? e.data.turnId : undefined));
    for (const id of ids) expectOnce(`${sessionId}: acknowledged turn ${id}`, completed.get(id));
  }
  for (const [compactionId, sessionId] of acked.compactions) {
    const found = countIn(sessionId, (e) => (e.type === "messages.superseded" ? e.data.compactionId : undefined));
    expectOnce(`${sessionId}: acknowledged compaction ${compactionId}`, found.get(compactionId));
  }
  for (const [from, to] of acked.handoffs) {
    const seals = (logs.get(from) ?? []).flatMap((e) => (e.type === "session.handed-off" ? [e.data.toSessionId] : []));
    expectOnce(`${from}: acknowledged hand-off to ${to}`, seals.filter((s) => s === to).length || undefined);
    const start = logs.get(to)?.[0];
    if (start?.type !== "session.started" || start.data.parent?.sessionId !== from) {
      lost.push(`${to}: successor of ${from} missing or not linked back`);
    }
  }
  return { lost, duplicated };
}

/**
 * Checks a database from a fresh store (new connections): every acknowledged write is there exactly once,
 * every log is whole (gapless, no doubled append or turn, each compaction all or nothing, a failed one
 * changed nothing), resume (snapshot plus newer events) equals a full replay of the log, every view holds
 * the invariants, sealed sessions have one seal and a linked successor holding the sealed view, the audit
 * read models equal a rebuild from the log (with `audit`), the recall index holds exactly the stored
 * messages (searchIndexProblems), and SQLite's integrity check says ok. With
 * `settled` (no write cut short is left to retry), every sealed session's successor exists too.
 */
export async function checkDatabase(url: string, acked: Acknowledged, options: CheckOptions): Promise<CheckReport> {
  const store = await openEventStore(url, options.keyring === undefined ? {} : { keyring: options.keyring });
  const runtime = new Palimpsest({ store, counterFor: async () => cheapCounter });
  const checked: CheckedSessions = options.checked ?? new Map();
  let report: CheckReport;
  try {
    report = await checkStore(store, runtime, acked, { ...options, checked });
  } finally {
    await runtime.close();
  }
  const logs = new Map([...checked].map(([sessionId, { log }]) => [sessionId, log]));
  report.invalid.push(...(await searchIndexProblems(url, logs)));
  report.invalid.push(...integrityProblems(url));
  return report;
}

/** What a check covers: the audit models too, whether every write has settled, and which sessions. */
export interface CheckOptions {
  audit: boolean;
  /** No write cut short is left to retry: every sealed session's successor must exist. */
  settled?: boolean;
  /** Sessions checked before (skipped while their version has not moved). */
  checked?: CheckedSessions;
  /** Only these sessions and the successors they were sealed to (default: every session). */
  sessions?: readonly string[];
  /** The keyring the store encrypts with, if it does. */
  keyring?: Keyring;
}

/** The checks of checkDatabase through an open runtime (the caller's connections), without the file's integrity check. */
export async function checkStore(
  store: OpenedEventStore,
  runtime: Palimpsest,
  acked: Acknowledged,
  options: CheckOptions,
): Promise<CheckReport> {
  const report: CheckReport = { lost: [], duplicated: [], invalid: [], sessions: 0, events: 0 };
  const checked = options.checked ?? new Map();
  const logs = new Map<string, readonly StoredEvent[]>();
  const listed = options.sessions === undefined ? await store.listSessions() : await known(store, options.sessions);
  for (const { sessionId, version } of listed) {
    const previous = checked.get(sessionId);
    if (previous?.log.length === version) {
      logs.set(sessionId, previous.log);
      continue;
    }
    // Resume first, then read the log up to where the resume got: another process may be writing.
    const resumed = await runtime.resume(sessionId);
    const log = await store.readStream(sessionId, { toSeq: resumed.state.lastSeq });
    logs.set(sessionId, log);
    const { duplicated, invalid } = logProblems(sessionId, log);
    report.duplicated.push(...duplicated);
    report.invalid.push(...invalid);
    const replayed = foldEvents(initialState(sessionId), log);
    const differs = stateDifferences(resumed.state, replayed);
    if (differs.length > 0) {
      report.invalid.push(
        `${sessionId}: resume differs from a full replay of its ${log.length} events in ${differs.join(", ")}`,
      );
    }
    report.invalid.push(...viewProblems(resumed, log).map((p) => `${sessionId}: ${p}`));
    const sealedTo = resumed.state.handedOffTo;
    checked.set(sessionId, {
      log,
      live: resumed.state.live.map((e) => e.message.id),
      ...(sealedTo ? { sealedTo } : {}),
    });
  }
  for (const { sessionId } of listed) {
    const { sealedTo, live } = checked.get(sessionId) ?? { live: [] };
    report.sessions++;
    report.events += logs.get(sessionId)?.length ?? 0;
    const successor = sealedTo === undefined ? undefined : logs.get(sealedTo);
    if (sealedTo !== undefined && successor === undefined && options.settled === true) {
      report.lost.push(`${sessionId}: sealed to ${sealedTo}, which was never started`);
    }
    if (successor !== undefined) {
      const carried = successor.flatMap((e) => (e.seq > 1 && e.type === "message.appended" ? [e.data.message.id] : []));
      if (carried.slice(0, live.length).join() !== live.join()) {
        report.invalid.push(`${sealedTo}: does not start with the sealed view of ${sessionId}`);
      }
    }
  }
  const { lost, duplicated } = acknowledgedProblems(acked, logs);
  report.lost.push(...lost);
  report.duplicated.push(...duplicated);
  if (options.audit) {
    const rebuilt = await new AuditReadModels(store).rebuild({ checkOnly: true });
    if (!rebuilt.equal) {
      report.invalid.push(
        `audit read models differ from a rebuild: ${JSON.stringify(rebuilt.differences.slice(0, 3))}`,
      );
    }
  }
  return report;
}

/** The summaries of `ids` and of every session they were sealed to, transitively (unknown ids left out). */
async function known(
  store: OpenedEventStore,
  ids: readonly string[],
): Promise<{ sessionId: string; version: number }[]> {
  const found: { sessionId: string; version: number }[] = [];
  const queue = [...new Set(ids)];
  const seen = new Set(queue);
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    const summary = await store.getSession(id);
    if (summary === undefined) continue;
    found.push({ sessionId: id, version: summary.version });
    const log = await store.readStream(id, { fromSeq: summary.version, toSeq: summary.version });
    const last = log[0];
    if (last?.type === "session.handed-off" && !seen.has(last.data.toSessionId)) {
      seen.add(last.data.toSessionId);
      queue.push(last.data.toSessionId);
    }
  }
  return found;
}

/** SQLite's `PRAGMA integrity_check` of the file at `url`, as problems (none for PostgreSQL or when it says ok). */
export function integrityProblems(url: string): string[] {
  if (url.startsWith("postgres")) return [];
  const db = new Database(url, { readonly: true });
  try {
    const result = db.pragma("integrity_check", { simple: true });
    return result === "ok" ? [] : [`PRAGMA integrity_check: ${String(result)}`];
  } finally {
    db.close();
  }
}

/**
 * Sessions a run has checked, by id: the log read (its length is the version checked), the live ids and
 * where it was sealed to. A later check skips the per-session checks of a session whose version has not
 * moved (a log only grows), so a run's checks cost what changed, not the whole database each time.
 */
export type CheckedSessions = Map<string, { log: readonly StoredEvent[]; live: string[]; sealedTo?: string }>;

/** Every problem of a report, one per line (empty when the database is sound). */
export function problemsOf(report: CheckReport): string[] {
  return [
    ...report.lost.map((p) => `lost: ${p}`),
    ...report.duplicated.map((p) => `duplicated: ${p}`),
    ...report.invalid.map((p) => `invalid: ${p}`),
  ];
}
