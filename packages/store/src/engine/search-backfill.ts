import { type Kysely, sql } from "kysely";
import type { StoreDatabase } from "./database-schema.ts";
import type { Dialect, IndexedEvent } from "./dialect.ts";
import { rowTerms } from "./row-terms.ts";

/** Events read per page while backfilling. */
const PAGE = 2_000;

/**
 * Adds the messages already in the log to the search index (migration 0018), page by page in position
 * order so a long log is never held in memory. An erased session's skeletons and an encrypted store's
 * sealed events hold no text to index and are passed over.
 */
export async function backfillSearch(untyped: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const db = untyped as unknown as Kysely<StoreDatabase>;
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom("events as e")
      .innerJoin("sessions as s", (j) =>
        j.onRef("s.session_id", "=", "e.session_id").onRef("s.tenant_id", "=", "e.tenant_id"),
      )
      .select(["e.position", "e.session_id", "e.type", sql<string>`e.data`.as("data")])
      .where("e.position", ">", after)
      .where("e.type", "=", "message.appended")
      .where("s.erased_at", "is", null)
      .orderBy("e.position")
      .limit(PAGE)
      .execute();
    const indexed: IndexedEvent[] = [];
    for (const row of rows) {
      const terms = rowTerms(row);
      if (terms !== undefined) indexed.push(terms);
    }
    await dialect.indexTerms(untyped, indexed);
    if (rows.length < PAGE) return;
    after = Number(rows.at(-1)?.position);
  }
}
