import type { GlobalCheckpoint } from "@palimpsest/core";
import { addAuditFacts, emptyAuditFacts } from "@palimpsest/projections";
import { guardStorage } from "../engine/storage-guard.ts";
import type { AuditSource } from "./audit-source.ts";
import { AUDIT_PROJECTOR, moveCheckpoint, writeFactStatements } from "./audit-writes.ts";

/** Events read from the log per transaction of the projector. */
export const AUDIT_PAGE_SIZE = 1000;

/** How long a catch-up waits for commits hidden behind PostgreSQL's visibility barrier, by default. */
export const AUDIT_VISIBILITY_WAIT_MS = 5_000;

/** How far a catch-up went. */
export interface CatchUpResult {
  /** Events this call projected (0 when the models were current). */
  events: number;
  checkpoint: GlobalCheckpoint;
  /**
   * False when some commit made before the catch-up was still hidden when it ended (PostgreSQL: an older
   * transaction stayed open longer than the wait); the next catch-up projects it.
   */
  complete: boolean;
}

/** Options of a catch-up. */
export interface CatchUpOptions {
  /** Events per page (one transaction each); default AUDIT_PAGE_SIZE. */
  pageSize?: number;
  /** How long to wait for commits still hidden by the visibility barrier; default AUDIT_VISIBILITY_WAIT_MS. */
  visibilityWaitMs?: number;
  onProgress?: AuditProgress;
}

/** Told after every page a long catch-up or rebuild projects. */
export type AuditProgress = (progress: { events: number }) => void;

/**
 * Brings the audit read models up to every commit made before the call (waiting a bounded time for
 * those PostgreSQL still hides behind an older open transaction): reads a page after the checkpoint,
 * then, in ONE transaction, moves the checkpoint from where it was read to the page's end and writes
 * the page's rows. The checkpoint move is a compare-and-set, so projectors in several processes never
 * write a page twice; the one that loses reads again from the winner's checkpoint.
 */
export async function catchUpAudit(source: AuditSource, options: CatchUpOptions = {}): Promise<CatchUpResult> {
  const { db, log } = source;
  const complete = await source.awaitVisible(options.visibilityWaitMs ?? AUDIT_VISIBILITY_WAIT_MS);
  const pageSize = options.pageSize ?? AUDIT_PAGE_SIZE;
  let events = 0;
  for (;;) {
    const from = await readAuditCheckpoint(source);
    const page = await log.readAll({ after: from, limit: pageSize });
    if (page.events.length === 0) return { events, checkpoint: from, complete };
    const facts = addAuditFacts(emptyAuditFacts(), page.events);
    const moved = await source.writeGuarded(moveCheckpoint(db, from, page.checkpoint), writeFactStatements(db, facts));
    if (moved) {
      events += page.events.length;
      options.onProgress?.({ events });
    }
  }
}

/** Where the audit projector stands ("" before its first page); creates its row on first use only. */
export async function readAuditCheckpoint(source: AuditSource): Promise<GlobalCheckpoint> {
  return guardStorage("audit", async () => {
    const { db } = source;
    const read = () =>
      db
        .selectFrom("audit_checkpoints")
        .select("checkpoint")
        .where("projector", "=", AUDIT_PROJECTOR)
        .executeTakeFirst();
    const row = await read();
    if (row !== undefined) return row.checkpoint;
    await db
      .insertInto("audit_checkpoints")
      .values({ projector: AUDIT_PROJECTOR, checkpoint: "" })
      .onConflict((oc) => oc.doNothing())
      .execute();
    return (await read())?.checkpoint ?? "";
  });
}
