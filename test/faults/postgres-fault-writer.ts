import { createHash } from "node:crypto";
import type { Palimpsest } from "@palimpsest/runtime";
import type pg from "pg";
import { type ChildExit, type ChildScript, startScript } from "../support/child-script.ts";
import { viewProblems } from "../support/view-invariants.ts";

/** The application_name the fault writer connects with, so only its backends are terminated. */
export const WRITER_APP = "palimpsest-fault-writer";

/** A line the fault writer printed (see postgres-fault-writer.script.ts). */
export type WriterMessage =
  | { begin: "append" | "read" | "compact"; step: number }
  | { acked: "append"; step: number; ids: string[] }
  | { acked: "compact"; step: number; status: string }
  | { failed: string; step: number; code: string; retryable: boolean; message: string }
  | { done: true; view: string; lastSeq: number }
  | { fatal: string };

/** What one run of the fault writer saw, and what the log held after it. */
export interface WriterOutcome {
  exit: ChildExit;
  stderr: string;
  fatal: string[];
  /** Failures the writer saw, counted by error code, retryable flag and message (numbers blanked). */
  failures: Record<string, number>;
  /** Failures by the operation they hit (append, read, compact, open, resume). */
  failuresByOp: Record<string, number>;
  /** Failures that were not retryable STORAGE errors. */
  unexpected: number;
  acknowledged: number;
  lost: string[];
  duplicated: string[];
  compactionsAcked: number;
  compactionsInLog: number;
  invalid: string[];
  /** The writer's final view equals a resume from the log. */
  resumeMatches: boolean;
}

/** The fault writer started on `sessionId` of the store at `url` (which should carry WRITER_APP). */
export function startFaultWriter(url: string, sessionId: string): ChildScript {
  return startScript("test/faults/postgres-fault-writer.script.ts", [url, sessionId]);
}

/** `url` with the given application_name, so its connections can be told apart in pg_stat_activity. */
export function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set("application_name", name);
  return u.href;
}

/** Terminates every backend of `application` on `database` (never another's); returns how many. */
export async function terminateBackends(admin: pg.Client, database: string, application: string): Promise<number> {
  return (await terminateCounting(admin, database, application)).terminated;
}

/**
 * terminateBackends, also counting the backends that were running a statement (`active`) when terminated:
 * those cut a call in flight, where the others sat idle in a pool.
 */
export async function terminateCounting(
  admin: pg.Client,
  database: string,
  application: string,
): Promise<{ terminated: number; running: number }> {
  const { rows } = await admin.query<{ terminated: number; running: number }>(
    `SELECT count(*)::int AS terminated, (count(*) FILTER (WHERE state = 'active'))::int AS running
      FROM (SELECT state, pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = $1 AND application_name = $2 AND pid <> pg_backend_pid()) t`,
    [database, application],
  );
  return rows[0] ?? { terminated: 0, running: 0 };
}

/** Waits for the writer to exit, then reads the log back from `runtime` and checks it against what was acknowledged. */
export async function writerOutcome(
  child: ChildScript,
  runtime: Palimpsest,
  sessionId: string,
): Promise<WriterOutcome> {
  const exit = await child.exited;
  const messages = child.messages as WriterMessage[];
  const failures: Record<string, number> = {};
  const failuresByOp: Record<string, number> = {};
  let unexpected = 0;
  const acked: string[] = [];
  let compactionsAcked = 0;
  let view: string | undefined;
  const fatal: string[] = [];
  for (const m of messages) {
    if ("failed" in m) {
      const kind = `${m.code} retryable=${m.retryable}: ${m.message.replace(/^\w+: /, "").replace(/\d+/g, "N")}`;
      failures[kind] = (failures[kind] ?? 0) + 1;
      failuresByOp[m.failed] = (failuresByOp[m.failed] ?? 0) + 1;
      if (m.code !== "STORAGE" || !m.retryable) unexpected++;
    } else if ("acked" in m) {
      if (m.acked === "append") acked.push(...m.ids);
      else if (m.status === "compacted") compactionsAcked++;
    } else if ("done" in m) view = m.view;
    else if ("fatal" in m) fatal.push(m.fatal);
  }
  const log = await runtime.store.readStream(sessionId);
  const counts = new Map<string, number>();
  for (const e of log)
    if (e.type === "message.appended") counts.set(e.data.message.id, (counts.get(e.data.message.id) ?? 0) + 1);
  const resumed = await runtime.resume(sessionId);
  const digest = createHash("sha256").update(JSON.stringify(resumed.view())).digest("hex");
  return {
    exit,
    stderr: child.stderr(),
    fatal,
    failures,
    failuresByOp,
    unexpected,
    acknowledged: acked.length,
    lost: acked.filter((id) => !counts.has(id)),
    duplicated: [...counts].filter(([, n]) => n > 1).map(([id]) => id),
    compactionsAcked,
    compactionsInLog: log.filter((e) => e.type === "messages.superseded").length,
    invalid: viewProblems(resumed, log),
    resumeMatches: digest === view,
  };
}
