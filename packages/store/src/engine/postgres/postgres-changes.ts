import type { StoreChange } from "@palimpsest/core";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import type { ChangeSource } from "../change-notifier.ts";
import type { StoreDatabase } from "../database-schema.ts";
import { CHANGES_CHANNEL, MAX_INLINE_SESSION_ID_BYTES, tenantTag } from "./change-channel.ts";

/** The listening connection's application_name, so operators can tell it apart. */
const LISTENER_NAME = "palimpsest-changes";

/** Reconnection backoff after the listening connection drops: first and longest wait. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 10_000;

/**
 * The change source of a store of `tenant` on `pool`: one dedicated pg.Client LISTENing on CHANGES_CHANNEL
 * while it runs, reconnecting with backoff. Notifications of other tenants, and those sent by the pool's
 * own connections, are skipped (the store already told its listeners in process); a hashed session id is
 * looked up in `sessions`.
 */
export function postgresChangeSource(pool: pg.Pool, db: Kysely<StoreDatabase>, tenant: string): ChangeSource {
  const tag = tenantTag(tenant);
  const ownBackends = new Set<number>();
  pool.on("connect", (client) => {
    const pid = backendPid(client);
    if (pid !== undefined) ownBackends.add(pid);
  });
  pool.on("remove", (client) => {
    const pid = backendPid(client);
    if (pid !== undefined) ownBackends.delete(pid);
  });
  return (deliver, live) => {
    const connection = new ListeningConnection(pool.options, tenant, deliver, live, (message) => {
      if (ownBackends.has(message.processId)) return;
      const change = parsePayload(message.payload);
      if (change === undefined || change.tenant !== tag) return;
      if (change.sessionId !== undefined) {
        deliver({ sessionId: change.sessionId, version: change.version });
        return;
      }
      sessionsWithHash(db, tenant, change.hash).then(
        (ids) => {
          for (const sessionId of ids) deliver({ sessionId, version: change.version });
        },
        (error: unknown) => console.error("palimpsest: could not resolve a change notification", error),
      );
    });
    return () => connection.close();
  };
}

/** The pid of a connected client's server process (pg sets it but does not type it). */
function backendPid(client: pg.PoolClient): number | undefined {
  const pid = (client as pg.PoolClient & { processID?: number | null }).processID;
  return typeof pid === "number" ? pid : undefined;
}

type ParsedChange = { version: number; tenant: string } & (
  | { sessionId: string; hash?: never }
  | { sessionId?: never; hash: string }
);

/** Reads `<version> <tenant tag> =<id>` or `<version> <tenant tag> #<hash>`; undefined for anything else (not ours). */
function parsePayload(payload: string | undefined): ParsedChange | undefined {
  if (payload === undefined) return undefined;
  const space = payload.indexOf(" ");
  const second = payload.indexOf(" ", space + 1);
  if (space <= 0 || second <= space + 1) return undefined;
  const version = Number(payload.slice(0, space));
  const tenant = payload.slice(space + 1, second);
  const ref = payload.slice(second + 1);
  if (!Number.isSafeInteger(version)) return undefined;
  if (ref.startsWith("=")) return { version, tenant, sessionId: ref.slice(1) };
  if (ref.startsWith("#")) return { version, tenant, hash: ref.slice(1) };
  return undefined;
}

/** The (rare) long session ids of `tenant` whose hash is `hash`: a scan of the long ids only. */
async function sessionsWithHash(db: Kysely<StoreDatabase>, tenant: string, hash: string): Promise<string[]> {
  const { rows } = await sql<{ session_id: string }>`
    SELECT session_id FROM sessions
    WHERE tenant_id = ${tenant} AND octet_length(session_id) > ${MAX_INLINE_SESSION_ID_BYTES}
      AND encode(sha256(convert_to(session_id, 'UTF8')), 'hex') = ${hash}`.execute(db);
  return rows.map((row) => row.session_id);
}

/** The oldest transaction still open (every older xid has finished), as text. */
const XMIN_SQL = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin";

/** Each session's last seq among the events of transactions from `$1` on: what a lost connection may have missed. */
const CHANGED_SINCE_SQL =
  "SELECT session_id, max(seq)::int AS version FROM events WHERE tenant_id = $2 AND transaction_id >= $1::xid8 " +
  "GROUP BY session_id";

/**
 * One LISTEN connection kept open until close(): when it drops, it reports once on stderr and reconnects
 * with doubling waits. The notifications sent while it was down are lost, so each new connection, once
 * LISTENing, tells `deliver` the sessions written by every transaction from the horizon on: the oldest
 * transaction open (cluster-wide) just after the connection before it began LISTENing. Every transaction
 * older than that had finished by then and was heard, or caught up, by that connection, so nothing
 * committed while no connection listened goes unheard. The catch-up reads the events written since the
 * previous connection began (an index range; further back while a long transaction holds the horizon)
 * and may repeat wake-ups, which are harmless. The first connection catches up from its own horizon: the
 * commits still hidden behind the visibility barrier then, which a global reader could not see yet and
 * whose notifications it never heard. Once the first connection has caught up, it calls `live`.
 */
class ListeningConnection {
  readonly #config: pg.ClientConfig;
  readonly #tenant: string;
  readonly #deliver: (change: StoreChange) => void;
  readonly #live: () => void;
  readonly #onNotification: (message: pg.Notification) => void;
  #client: pg.Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #delay = FIRST_RETRY_MS;
  #reported = false;
  #horizon: string | undefined;

  constructor(
    config: pg.ClientConfig,
    tenant: string,
    deliver: (change: StoreChange) => void,
    live: () => void,
    onNotification: (message: pg.Notification) => void,
  ) {
    this.#config = { ...config, application_name: LISTENER_NAME };
    this.#tenant = tenant;
    this.#deliver = deliver;
    this.#live = live;
    this.#onNotification = onNotification;
    void this.#connect();
  }

  /** Ends the connection (or the wait for the next attempt); never rejects. */
  async close(): Promise<void> {
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(this.#config);
    this.#client = client;
    client.on("notification", (message) => {
      if (message.channel === CHANGES_CHANNEL) this.#onNotification(message);
    });
    client.on("error", (error) => this.#lost(client, error));
    client.on("end", () => this.#lost(client, "the connection ended"));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      const next = (await client.query<{ xmin: string }>(XMIN_SQL)).rows[0]?.xmin;
      const horizon = this.#horizon ?? next;
      const { rows } = await client.query<{ session_id: string; version: number }>(CHANGED_SINCE_SQL, [
        horizon,
        this.#tenant,
      ]);
      if (this.#client !== client) return;
      this.#horizon = next;
      this.#delay = FIRST_RETRY_MS;
      this.#reported = false;
      for (const row of rows) this.#deliver({ sessionId: row.session_id, version: row.version });
      this.#live();
    } catch (error) {
      this.#lost(client, error);
    }
  }

  /** Handles the first sign that `client` is gone (later ones, and any after close(), are ignored). */
  #lost(client: pg.Client, error: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => {});
    if (!this.#reported) {
      this.#reported = true;
      const reason = error instanceof Error ? error.message : String(error);
      console.error(`palimpsest: lost the change-notification connection (${reason}); reconnecting`);
    }
    this.#retry = setTimeout(() => void this.#connect(), this.#delay);
    this.#retry.unref();
    this.#delay = Math.min(this.#delay * 2, MAX_RETRY_MS);
  }
}
