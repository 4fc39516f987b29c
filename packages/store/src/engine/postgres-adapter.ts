import { Kysely, PostgresDialect, type QueryCreator, sql } from "kysely";
import pg from "pg";
import { claimVersionQuery, type PreparedBatch } from "./append-batch.ts";
import type { StoreDatabase } from "./database-schema.ts";
import type { EngineAdapter, WrittenRow } from "./engine-adapter.ts";

const INT8_OID = 20;
const JSON_OID = 114;

/** Type parsing for this pool only: int8 (positions) as numbers, json as its verbatim text. */
const storeTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === JSON_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig["getTypeParser"],
};

/** Opens a pg pool with the store's type parsing; idle-client errors surface on the next query instead. */
export function createPostgresPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, types: storeTypes });
  pool.on("error", () => {});
  return pool;
}

/**
 * The PostgreSQL adapter. An append is ONE statement: a CTE claims the versions on the sessions row
 * (whose row lock serializes appends per session), records the idempotency key, and inserts every event
 * from unnest()ed arrays. Global readers only see rows below the oldest open transaction.
 */
export function postgresAdapter(pool: pg.Pool): EngineAdapter {
  const db = new Kysely<StoreDatabase>({ dialect: new PostgresDialect({ pool }) });
  return {
    engine: "postgres",
    db,
    visibilityBarrier: sql<boolean>`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`,
    async writeBatch(batch) {
      const claim = claimVersionQuery(db, batch);
      if (claim === undefined) return undefined;
      try {
        const rows: WrittenRow[] = await writeStatement(
          db.with("claimed", () => claim),
          batch,
        ).execute();
        return rows.length === 0 ? undefined : rows;
      } catch (error) {
        if (isUsedIdempotencyKey(error)) return undefined;
        throw error;
      }
    },
  };
}

type ClaimedDb = QueryCreator<StoreDatabase & { claimed: { version: number } }>;

function writeStatement(db: ClaimedDb, batch: PreparedBatch) {
  const count = batch.events.length;
  const column = <K extends keyof PreparedBatch["events"][number]>(key: K) => batch.events.map((e) => e[key]);
  const rows = sql<{
    event_id: string;
    type: string;
    schema_version: number;
    data: string;
    content_hash: string;
    ord: number;
  }>`unnest(${column("eventId")}::uuid[], ${column("type")}::text[], ${column("schemaVersion")}::int[], ${column("data")}::json[], ${column("contentHash")}::text[]) with ordinality`.as<"v">(
    sql`v(event_id, type, schema_version, data, content_hash, ord)`,
  );
  const key = batch.idempotencyKey;
  // The "keyed" CTE adds a table nothing reads, so its query creator is used as the plain one.
  const keyed =
    key === null
      ? db
      : (db.with("keyed", (qc) =>
          qc
            .insertInto("idempotency_keys")
            .columns(["session_id", "idempotency_key", "content_hash", "first_seq", "last_seq"])
            .expression((eb) =>
              eb
                .selectFrom("claimed")
                .select([
                  sql<string>`${batch.sessionId}::text`.as("session_id"),
                  sql<string>`${key}::text`.as("idempotency_key"),
                  sql<string>`${batch.contentHash}::text`.as("content_hash"),
                  sql<number>`claimed.version - ${count}::int + 1`.as("first_seq"),
                  "claimed.version as last_seq",
                ]),
            ),
        ) as unknown as ClaimedDb);
  return keyed
    .insertInto("events")
    .columns([
      "event_id",
      "session_id",
      "seq",
      "type",
      "schema_version",
      "occurred_at",
      "causation_id",
      "correlation_id",
      "idempotency_key",
      "content_hash",
      "tenant_id",
      "data",
    ])
    .expression((eb) =>
      eb
        .selectFrom(["claimed", rows])
        .select([
          "v.event_id",
          sql<string>`${batch.sessionId}::text`.as("session_id"),
          sql<number>`claimed.version - ${count}::int + v.ord::int`.as("seq"),
          "v.type",
          "v.schema_version",
          sql<string>`${batch.occurredAt}::timestamptz`.as("occurred_at"),
          sql<string | null>`${batch.causationId}::text`.as("causation_id"),
          sql<string | null>`${batch.correlationId}::text`.as("correlation_id"),
          sql<string | null>`${key}::text`.as("idempotency_key"),
          "v.content_hash",
          sql<string>`${batch.tenantId}::text`.as("tenant_id"),
          "v.data",
        ])
        .orderBy("v.ord"),
    )
    .returning(["position", "seq", "event_id"]);
}

/** True for the unique violation a concurrent append with the same idempotency key causes. */
function isUsedIdempotencyKey(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown };
  return e.code === "23505" && e.constraint === "idempotency_keys_pkey";
}
