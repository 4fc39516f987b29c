import {
  checkBytes,
  type DroppedKey,
  MIRROR_LIMITS,
  type MirrorEntryRow,
  type MirrorKey,
  type MirrorKeyRow,
  type MirrorLogPort,
  StorageError,
} from "@palimpsest/core";
import { type CompiledQuery, type Kysely, type Selectable, sql } from "kysely";
import { LRUCache } from "lru-cache";
import type { StoreDatabase } from "../engine/database-schema.ts";
import type { Dialect } from "../engine/dialect.ts";
import type { GuardedWrite, LockedWrite } from "../engine/guarded-write.ts";
import { againOnDrop, guardRead, guardStorage } from "../engine/storage-guard.ts";
import { storeAccess } from "../engine/store-access.ts";
import {
  guardKeyRow,
  insertEntries,
  keyColumns,
  type MirrorRowRead,
  planMirrorAppend,
  rowAfter,
  writesEntries,
} from "./mirror-append-plan.ts";
import { insertKeyRow, rehearseFirstAppend, selectKeyRow } from "./mirror-first-append.ts";
import { newKeyAppend, quickAppend } from "./mirror-quick-append.ts";
import { AppendKeys, type GenerationSeal, MirrorSeal } from "./mirror-seal.ts";
import { foldSessionsBefore, foldSessionsIn, keyOfFoldSession, recordFoldSession } from "./mirror-sessions.ts";
import type { MirrorKeysTable, MirrorTables } from "./mirror-tables.ts";

/** One entry to store: its JSON text, verbatim, and its uuid's key (mirrorUuidKey) when it has one. */
export interface MirrorEntryInput {
  text: string;
  uuid: string | undefined;
}

/** What a mirror append stored: entries new to the key (retried and replayed ones are passed over). */
export interface MirrorAppendResult {
  stored: number;
  generation: number;
  /** The key's entry count after the append. */
  nextSeq: number;
  /** Indexes (in the batch) of entries passed over for a uuid the key held with other content (dedupBatch). */
  mismatched: number[];
}

/**
 * The caller's summary of a key, folded from its previous one and the entries an append stores. An append
 * may call it more than once (again after another writer moved the key, or on the locked path after a
 * held uuid), keeping the last result: it must depend on its arguments only.
 */
export type MirrorSummarize = (previous: string | null, stored: readonly MirrorEntryInput[], mtimeMs: number) => string;

/** What the mirror writes through: its tables, the engine's dialect, and the store's locked write. */
export interface MirrorDatabase {
  readonly db: Kysely<StoreDatabase & MirrorTables>;
  /** The store's tenant, which raw SQL names itself. */
  readonly tenant: string;
  readonly dialect: Dialect;
  readonly writeGuarded: GuardedWrite;
  readonly writeLocked: LockedWrite;
  /** Runs statements in a transaction rolled back (StoreAccess.rehearse). */
  readonly rehearse: (statements: readonly CompiledQuery[]) => Promise<void>;
}

/** Keys whose generation an encrypted mirror remembers (the least recently written are dropped past it). */
const REMEMBERED_GENERATIONS = 10_000;

/** Keys whose row an append remembers (the quick path's; the least recently written are read again). */
const REMEMBERED_ROWS = 1_000;

/** What the quick path answers for a key with no row yet. */
const NO_ROW = Symbol("no row");

/** What one locked attempt at an append came to. */
type LockedAppend =
  | { readonly kind: "appended"; readonly result: MirrorAppendResult; readonly row: MirrorRowRead }
  /** The key has no row yet: nothing was written. */
  | { readonly kind: "no-row" }
  /** A drop moved the key to `generation` after the append took its keys: nothing was written. */
  | { readonly kind: "moved"; readonly generation: number };

/**
 * The verbatim log of mirrored transcripts: entries in the order they were stored, a uuid stored once
 * per key. Appends to one key are serialized by a compare-and-set of the key's row written with the
 * entries (quickAppend), or, when a uuid of the batch is held, under the key's row lock (the dialect's
 * lockRows: PostgreSQL `FOR UPDATE`, SQLite `BEGIN IMMEDIATE`), so two processes appending at once both
 * land, each entry once, and the summary is folded from the one before it. In a store opened with a keyring, entries and summaries are sealed under a
 * data key per key and generation, which a drop destroys (MirrorSeal).
 */
export class MirrorLog implements MirrorLogPort {
  readonly #store: MirrorDatabase;
  readonly #seal: MirrorSeal | undefined;
  /**
   * The generation each key was last appended to through this log (encrypted stores: whose keys to take),
   * the least recently used forgotten past REMEMBERED_GENERATIONS.
   */
  readonly #generations = new LRUCache<string, number>({ max: REMEMBERED_GENERATIONS });
  /**
   * Each key's row as this log last wrote it (the quick path's compare-and-set checks it is still so),
   * the least recently written forgotten past REMEMBERED_ROWS; a drop here forgets its keys.
   */
  readonly #rows = new LRUCache<string, MirrorRowRead>({ max: REMEMBERED_ROWS });
  /**
   * Keys this log has found or made a row for (a row is never deleted: a drop begins its next
   * generation), so their appends never bet them new (newKeyAppend); the least recent forgotten past
   * REMEMBERED_GENERATIONS.
   */
  readonly #known = new LRUCache<string, true>({ max: REMEMBERED_GENERATIONS });

  /** The mirror in the database of a store openEventStore opened (ValidationError for any other object). */
  constructor(store: object) {
    const access = storeAccess(store);
    this.#store = {
      db: access.db.withTables<MirrorTables>(),
      tenant: access.tenant,
      dialect: access.dialect,
      writeGuarded: access.writeGuarded,
      writeLocked: access.writeLocked,
      rehearse: access.rehearse,
    };
    this.#seal = access.cipher === undefined ? undefined : new MirrorSeal(access.cipher);
  }

  /**
   * Stores the entries new to `key` in one transaction (dedupBatch): an entry whose uuid the key holds is
   * a retry or replay and is passed over (the result names those whose content differs from the entry
   * held), as is every entry of a batch all of whose uuid entries the key holds; entries without a uuid
   * are stored as they come. `summarize` folds the summary (main keys). ValidationError, before anything
   * is written, for a name over its limit (MIRROR_LIMITS).
   */
  async append(
    key: MirrorKey,
    entries: readonly MirrorEntryInput[],
    summarize?: MirrorSummarize,
  ): Promise<MirrorAppendResult> {
    checkKeyBytes(key, "key");
    for (const [i, entry] of entries.entries()) {
      if (entry.uuid !== undefined) checkBytes(entry.uuid, MIRROR_LIMITS.uuid, `entries[${i}].uuid`);
    }
    // Made again on a dropped connection, the key's row read afresh (how the write left it is unknown): the
    // entries a lost commit stored are held by their uuids and passed over (docs/claude-agent-sdk.md).
    return guardStorage("mirror.append", () =>
      againOnDrop(
        () => this.#append(key, entries, summarize),
        () => this.#rows.delete(keyId(key)),
      ),
    );
  }

  async #append(
    key: MirrorKey,
    entries: readonly MirrorEntryInput[],
    summarize: MirrorSummarize | undefined,
  ): Promise<MirrorAppendResult> {
    const keys = new AppendKeys(this.#seal, key);
    let generation: number | undefined;
    try {
      const result = await this.#appendWith(key, entries, summarize, keys);
      generation = result.generation;
      if (this.#seal !== undefined) this.#generations.set(keyId(key), generation);
      return result;
    } finally {
      if (keys.taken) {
        // Failed: the key's generation now tells which keys taken a drop has left (unread: left as they are).
        generation ??= await this.#keyQuery(key)
          .executeTakeFirst()
          .then((row) => row?.generation)
          .catch(() => undefined);
        if (generation !== undefined) await keys.destroyBelow(generation);
      }
    }
  }

  /**
   * The append: the quick path, else the locked one. A key with no row yet (its first append) has it made
   * with the batch (the quick path's newKeyAppend) or, when that cannot be, made alone and the quick path
   * tried again on it.
   */
  async #appendWith(
    key: MirrorKey,
    entries: readonly MirrorEntryInput[],
    summarize: MirrorSummarize | undefined,
    keys: AppendKeys,
  ): Promise<MirrorAppendResult> {
    for (let created = false; ; ) {
      const quick = await this.#appendQuickly(key, entries, summarize, keys);
      if (quick !== undefined && quick !== NO_ROW) return quick;
      if (quick === undefined) {
        const sealing = await keys.forGeneration(await this.#sealedGeneration(key));
        const attempt = await this.#appendLocked(key, entries, summarize, sealing);
        if (attempt.kind === "appended") {
          this.#rows.set(keyId(key), attempt.row);
          this.#known.set(keyId(key), true);
          return attempt.result;
        }
        if (attempt.kind === "moved") {
          this.#generations.set(keyId(key), attempt.generation);
          await keys.destroyBelow(attempt.generation);
          continue;
        }
      }
      // No row, as the quick path's read or the lock found: made, then the append tried again on it.
      if (created) throw new StorageError("mirrorAppend", "the key's row vanished after it was created");
      await this.#createRow(key);
      created = true;
    }
  }

  /**
   * The key's row at generation 0, unless a process made it first (the key's first append); the row made is
   * remembered, so the quick path writes on it without reading it.
   */
  async #createRow(key: MirrorKey): Promise<void> {
    const made = await insertKeyRow(this.#store.db, key).executeTakeFirst();
    if (made !== undefined) this.#rows.set(keyId(key), made);
    this.#known.set(keyId(key), true);
  }

  /**
   * Runs a key's first append once, writing nothing, so the process's first real one finds its code
   * compiled and, on SQLite, its statements prepared: the statements `append` would run for `entries` on
   * `key`, a key without a row (its row made with the entries written on it; on an encrypted store its row
   * read, made, and the entries written on it by the quick path; the summary folded with `summarize`), in
   * one transaction rolled back, into which no other write lands
   * (StoreAccess.rehearse). Unsealed on an encrypted store, so no data key is made: pass made-up entries.
   * A StorageError when the database refuses or a lock is held (it never waits for one): the caller only
   * loses the saving.
   */
  async rehearseFirstAppend(
    key: MirrorKey,
    entries: readonly MirrorEntryInput[],
    summarize?: MirrorSummarize,
  ): Promise<void> {
    await guardStorage("mirror.rehearseFirstAppend", () =>
      rehearseFirstAppend(this.#store, key, entries, summarize, this.#seal === undefined),
    );
  }

  /** An encrypted store's generation to seal for: remembered, else read (the lock checks it); 0 unencrypted. */
  async #sealedGeneration(key: MirrorKey): Promise<number> {
    if (this.#seal === undefined) return 0;
    return this.#generations.get(keyId(key)) ?? (await this.#keyQuery(key).executeTakeFirst())?.generation ?? 0;
  }

  /**
   * The append under the key's row lock: stored, or nothing written when the key has no row yet or a drop
   * moved it past the generation `sealing` is for. Entries held and the summary are opened, and what is
   * written sealed, with `sealing`'s keys.
   */
  async #appendLocked(
    key: MirrorKey,
    entries: readonly MirrorEntryInput[],
    summarize: MirrorSummarize | undefined,
    sealing: GenerationSeal | undefined,
  ): Promise<LockedAppend> {
    const db = this.#store.db;
    const subpath = key.subpath ?? "";
    const uuids = [...new Set(entries.flatMap((e) => (e.uuid === undefined ? [] : [e.uuid])))];
    const keyRow = this.#keyQuery(key);
    const reads: CompiledQuery[] = [this.#store.dialect.lockRows(keyRow).compile()];
    if (uuids.length > 0) {
      reads.push(
        db
          .selectFrom("mirror_entries as e")
          .innerJoin("mirror_keys as k", (j) =>
            j
              .onRef("k.project_key", "=", "e.project_key")
              .onRef("k.session_key", "=", "e.session_key")
              .onRef("k.subpath", "=", "e.subpath")
              .onRef("k.generation", "=", "e.generation"),
          )
          .select(["e.uuid", "e.entry"])
          .where("e.project_key", "=", key.project)
          .where("e.session_key", "=", key.session)
          .where("e.subpath", "=", subpath)
          .where("e.uuid", "in", uuids)
          .compile(),
      );
    }
    const nothing = (result: LockedAppend) => ({ guard: undefined, statements: [], result });
    const written = await this.#store.writeLocked(reads, ([keys, known]) => {
      const row = keys?.[0] as Selectable<MirrorKeysTable> | undefined;
      if (row === undefined) return nothing({ kind: "no-row" });
      if (sealing !== undefined && row.generation !== sealing.generation)
        return nothing({ kind: "moved", generation: row.generation });
      const held = (known ?? []).map((r) => [r.uuid as string, r.entry as string] as const);
      const plan = planMirrorAppend(row, held, entries, summarize, sealing);
      if (!writesEntries(plan)) return nothing({ kind: "appended", result: plan, row });
      const guard = guardKeyRow(this.#store.tenant, key, row, plan).compile(db);
      const statements = insertEntries(this.#store, key, row.generation, plan.entries);
      return {
        guard,
        statements,
        result: { kind: "appended", result: plan.result, row: rowAfter(row, plan) } as LockedAppend,
      };
    });
    return written;
  }

  /**
   * The quick path (quickAppend): the write alone on the key's row as this log last left it, else as read
   * now (a key this log has not seen, on a store that does not encrypt, is first bet new: newKeyAppend),
   * sealed for the row's generation; undefined, nothing written, for an empty batch (answered by the
   * locked path's read, never from memory), a key that moved under a fresh read too, or a batch with a
   * uuid the key holds: the locked path then stores what is new. NO_ROW, nothing written, for a key with no
   * row yet.
   */
  async #appendQuickly(
    key: MirrorKey,
    entries: readonly MirrorEntryInput[],
    summarize: MirrorSummarize | undefined,
    keys: AppendKeys,
  ): Promise<MirrorAppendResult | typeof NO_ROW | undefined> {
    if (entries.length === 0) return undefined;
    const id = keyId(key);
    const remembered = this.#rows.get(id);
    if (remembered === undefined && !this.#known.has(id) && this.#seal === undefined) {
      // Not seen by this process: bet that the key is new (newKeyAppend), else read its row as below.
      const outcome = await newKeyAppend(this.#store, key, entries, summarize);
      this.#known.set(id, true);
      if (outcome.kind === "appended") {
        this.#rows.set(id, outcome.row);
        return outcome.result;
      }
    }
    for (const reading of remembered === undefined ? [true] : [false, true]) {
      const row = reading ? await this.#keyQuery(key).executeTakeFirst() : remembered;
      if (row === undefined) return NO_ROW;
      this.#known.set(id, true);
      await keys.destroyBelow(row.generation);
      const sealing = await keys.forGeneration(row.generation);
      const outcome = await quickAppend(this.#store, key, row, entries, summarize, sealing).catch((error: unknown) => {
        this.#rows.delete(id);
        // A remembered row may be stale: its summary sealed under a key a drop destroyed, say. Read it again.
        if (reading) throw error;
        return { kind: "moved" } as const;
      });
      if (outcome.kind === "appended") {
        this.#rows.set(id, outcome.row);
        return outcome.result;
      }
      this.#rows.delete(id);
      if (outcome.kind === "held") break;
    }
    return undefined;
  }

  /** The key's row, or undefined for a key never written. */
  async key(key: MirrorKey): Promise<MirrorKeyRow | undefined> {
    return guardRead("mirror.key", async () => {
      const row = await this.#keyQuery(key).executeTakeFirst();
      if (row === undefined) return undefined;
      const [opened] = await this.#opened([row]);
      return toKeyRow(opened ?? row);
    });
  }

  /** The JSON texts of the key's entries in the current generation, in the order they were stored (up to `toSeq`). */
  async entries(key: MirrorKey, generation: number, toSeq?: number): Promise<string[]> {
    return guardRead("mirror.entries", async () => {
      const rows = await this.#store.db
        .selectFrom("mirror_entries")
        .select("entry")
        .where((eb) => eb.and(keyColumns(key)))
        .where("generation", "=", generation)
        .$if(toSeq !== undefined, (qb) => qb.where("seq", "<=", toSeq ?? 0))
        .orderBy("seq")
        .execute();
      const keys = await this.#seal?.keysToOpen(
        key,
        generation,
        rows.map((r) => r.entry),
      );
      return rows.map((r) => this.#seal?.openEntry(keys, r.entry) ?? r.entry);
    });
  }

  /**
   * The key's entries in `generation` in the order they were stored (seq 1, 2…), those after `afterSeq`
   * only when it is given: each one's seq, JSON text and its uuid's key (mirrorUuidKey; null without a
   * uuid), as the fold reads them.
   */
  async entryRows(key: MirrorKey, generation: number, afterSeq = 0): Promise<MirrorEntryRow[]> {
    return guardRead("mirror.entryRows", async () => {
      const rows = await this.#store.db
        .selectFrom("mirror_entries")
        .select(["seq", "entry", "uuid"])
        .where((eb) => eb.and(keyColumns(key)))
        .where("generation", "=", generation)
        .where("seq", ">", afterSeq)
        .orderBy("seq")
        .execute();
      const keys = await this.#seal?.keysToOpen(
        key,
        generation,
        rows.map((r) => r.entry),
      );
      return rows.map((r) => ({ seq: r.seq, text: this.#seal?.openEntry(keys, r.entry) ?? r.entry, uuid: r.uuid }));
    });
  }

  /** The keys of one session (its main key and every subpath) holding entries, main first. */
  async sessionKeys(project: string, session: string): Promise<(MirrorKey & MirrorKeyRow)[]> {
    return guardRead("mirror.sessionKeys", async () => {
      const rows = await this.#store.db
        .selectFrom("mirror_keys")
        .selectAll()
        .where("project_key", "=", project)
        .where("session_key", "=", session)
        .where("next_seq", ">", 0)
        .orderBy("subpath")
        .execute();
      return (await this.#opened(rows)).map(withKey);
    });
  }

  /** Every key of one session, written or emptied: its main key (when it has one) and its subpaths. */
  async allKeysOf(project: string, session: string): Promise<(MirrorKey & MirrorKeyRow)[]> {
    return guardRead("mirror.allKeysOf", async () => {
      const rows = await this.#store.db
        .selectFrom("mirror_keys")
        .selectAll()
        .where("project_key", "=", project)
        .where("session_key", "=", session)
        .execute();
      return (await this.#opened(rows)).map(withKey);
    });
  }

  /** The main keys of a project holding entries. */
  async projectSessions(project: string): Promise<(MirrorKey & MirrorKeyRow)[]> {
    return this.#mainKeysWhere("mirror.projectSessions", "project_key", project);
  }

  /**
   * The main keys holding entries of the external session `session` (an SDK's session id), in every
   * project that has it, by project key: where a session id alone is stored.
   */
  async mainKeysOf(session: string): Promise<(MirrorKey & MirrorKeyRow)[]> {
    return this.#mainKeysWhere("mirror.mainKeysOf", "session_key", session);
  }

  /** The main keys holding entries whose `column` is `value`, by project key then session key. */
  async #mainKeysWhere(
    operation: string,
    column: "project_key" | "session_key",
    value: string,
  ): Promise<(MirrorKey & MirrorKeyRow)[]> {
    return guardRead(operation, async () => {
      const rows = await this.#store.db
        .selectFrom("mirror_keys")
        .selectAll()
        .where(column, "=", value)
        .where("subpath", "=", "")
        .where("next_seq", ">", 0)
        .orderBy("project_key")
        .orderBy("session_key")
        .execute();
      return (await this.#opened(rows)).map(withKey);
    });
  }

  /** Keys (of any project) holding entries not yet folded: what a crash left for the folder. */
  async unfolded(): Promise<(MirrorKey & MirrorKeyRow)[]> {
    return guardRead("mirror.unfolded", async () => {
      const rows = await this.#store.db
        .selectFrom("mirror_keys")
        .selectAll()
        .whereRef("folded_seq", "<", "next_seq")
        .execute();
      return (await this.#opened(rows)).map(withKey);
    });
  }

  /**
   * Sessions folded from generations their key has since left (erased) that still hold content: what a
   * delete cut short by a crash left to erase.
   */
  async unerasedSessions(): Promise<string[]> {
    return guardRead("mirror.unerasedSessions", async () => {
      const rows = await this.#store.db
        .selectFrom("mirror_sessions as m")
        .innerJoin("mirror_keys as k", (j) =>
          j
            .onRef("k.project_key", "=", "m.project_key")
            .onRef("k.session_key", "=", "m.session_key")
            .onRef("k.subpath", "=", "m.subpath"),
        )
        .innerJoin("sessions as s", "s.session_id", "m.session_id")
        .select("m.session_id")
        .whereRef("m.generation", "<", "k.generation")
        .where("s.erased_at", "is", null)
        .execute();
      return rows.map((r) => r.session_id);
    });
  }

  /** Records that the key's entries up to `seq` of `generation` are folded (never moves back). */
  async markFolded(key: MirrorKey, generation: number, seq: number): Promise<void> {
    return guardStorage("mirror.markFolded", async () => {
      await this.#store.db
        .updateTable("mirror_keys")
        .set({ folded_seq: sql<number>`case when folded_seq < ${seq} then ${seq} else folded_seq end` })
        .where((eb) => eb.and(keyColumns(key)))
        .where("generation", "=", generation)
        .execute();
    });
  }

  /**
   * Drops a key in one transaction, under its row lock: a main key with every subpath of its session, a
   * subpath alone. Each key's next generation begins (empty, no summary), so a crash leaves the session's
   * keys all dropped or all as they were, and its entries of the generation it left are deleted.
   * Encrypted: the entries are deleted after the transaction, once the left generation's data key is
   * destroyed (no copy of them, in the WAL, a replica or a backup, can be read from then on); a crash
   * between leaves them in a generation `load` no longer reads, and `finishDrops` (or the next drop)
   * destroys the key and deletes them.
   * What it dropped, each key with the generation it left; nothing for a key never written.
   */
  async drop(key: MirrorKey): Promise<DroppedKey[]> {
    return guardStorage("mirror.drop", async () => {
      const db = this.#store.db;
      const keys = db
        .selectFrom("mirror_keys")
        .selectAll()
        .where("project_key", "=", key.project)
        .where("session_key", "=", key.session)
        .$if(key.subpath !== undefined, (qb) => qb.where("subpath", "=", key.subpath ?? ""))
        .orderBy("subpath");
      const seal = this.#seal;
      const dropped = await this.#store.writeLocked([this.#store.dialect.lockRows(keys).compile()], ([rows]) => {
        const dropped = (rows ?? []).map((r) => withKey(r as Selectable<MirrorKeysTable>));
        const writes = dropped.flatMap((row) => [
          db
            .updateTable("mirror_keys")
            .set({
              generation: row.generation + 1,
              next_seq: 0,
              folded_seq: 0,
              summary: null,
              last_batch: null,
              mtime_ms: Math.max(Date.now(), row.mtimeMs + 1),
            })
            .where((eb) => eb.and(keyColumns(row)))
            .where("generation", "=", row.generation)
            .compile(),
          ...(seal === undefined ? [this.#deleteEntries(row, row.generation + 1).compile()] : []),
        ]);
        const [guard, ...statements] = writes;
        return { guard, statements, result: dropped };
      });
      // The rows remembered are stale now (an append's compare-and-set would find so); their summaries go.
      for (const row of dropped) this.#rows.delete(keyId(row));
      if (seal === undefined) return dropped;
      const opened = await Promise.all(
        dropped.map(async (row) => ({ ...row, summary: await seal.openRowSummary(row, row.generation, row.summary) })),
      );
      for (const row of dropped) await this.#forget(row, [row.generation]);
      return opened;
    });
  }

  /**
   * Finishes what encrypted drops a crash cut short (see `drop`): for each key holding entries of a
   * generation it has left, destroys that generation's data key and deletes them. How many keys it finished.
   */
  async finishDrops(): Promise<number> {
    return guardStorage("mirror.finishDrops", async () => {
      const rows = await this.#store.db
        .selectFrom("mirror_keys as k")
        .innerJoin("mirror_entries as e", (j) =>
          j
            .onRef("e.project_key", "=", "k.project_key")
            .onRef("e.session_key", "=", "k.session_key")
            .onRef("e.subpath", "=", "k.subpath")
            .onRef("e.generation", "<", "k.generation"),
        )
        .select(["k.project_key", "k.session_key", "k.subpath", "e.generation"])
        .distinct()
        .where("k.generation", ">", 0)
        .execute();
      const left = new Map<string, { key: MirrorKey; generations: number[] }>();
      for (const row of rows) {
        const key = {
          project: row.project_key,
          session: row.session_key,
          ...(row.subpath === "" ? {} : { subpath: row.subpath }),
        };
        const held = left.get(keyId(key)) ?? { key, generations: [] };
        held.generations.push(row.generation);
        left.set(keyId(key), held);
      }
      for (const { key, generations } of left.values()) await this.#forget(key, generations);
      return left.size;
    });
  }

  /**
   * Destroys the data keys of generations a key has left, then deletes its entries of them; the keys again
   * after (an append that took a left generation's keys meanwhile may have made one again).
   */
  async #forget(key: MirrorKey, generations: readonly number[]): Promise<void> {
    for (const generation of generations) await this.#seal?.destroy(key, generation);
    await this.#deleteEntries(key, Math.max(...generations) + 1).execute();
    for (const generation of generations) await this.#seal?.destroy(key, generation);
  }

  /** Deletes the key's entries of every generation before `beforeGeneration`. */
  #deleteEntries(key: MirrorKey, beforeGeneration: number) {
    return this.#store.db
      .deleteFrom("mirror_entries")
      .where((eb) => eb.and(keyColumns(key)))
      .where("generation", "<", beforeGeneration);
  }

  /**
   * Records that `sessionId` holds a fold of the key's `generation`, before anything is written to it;
   * false when the key has moved past that generation (it was erased: nothing may be folded for it).
   */
  async registerSession(key: MirrorKey, generation: number, sessionId: string): Promise<boolean> {
    return guardStorage("mirror.registerSession", async () => {
      await recordFoldSession(this.#store.db, key, generation, sessionId);
      return (await this.key(key))?.generation === generation;
    });
  }

  /** The key whose current generation `sessionId` was folded from, if any. */
  keyOfSession(sessionId: string): Promise<MirrorKey | undefined> {
    return guardRead("mirror.keyOfSession", () => keyOfFoldSession(this.#store.db, sessionId));
  }

  /**
   * The sessions folds of the key's `generation` started, the key's main thread first, then the others
   * in the order they were started (foldSessionsIn).
   */
  sessionsIn(key: MirrorKey, generation: number): Promise<string[]> {
    return guardRead("mirror.sessionsIn", () => foldSessionsIn(this.#store.db, key, generation));
  }

  /** The sessions folds of the key's generations before `beforeGeneration` were written to. */
  sessionsOf(key: MirrorKey, beforeGeneration: number): Promise<string[]> {
    return guardRead("mirror.sessionsOf", () => foldSessionsBefore(this.#store.db, key, beforeGeneration));
  }

  /** Key rows with each summary opened (null when sealed under a key a delete destroyed). */
  async #opened(rows: Selectable<MirrorKeysTable>[]): Promise<Selectable<MirrorKeysTable>[]> {
    const seal = this.#seal;
    if (seal === undefined) return rows;
    return Promise.all(
      rows.map(async (row) => ({
        ...row,
        summary: await seal.openRowSummary(withKey(row), row.generation, row.summary),
      })),
    );
  }

  #keyQuery(key: MirrorKey) {
    return selectKeyRow(this.#store.db, key);
  }
}

/** ValidationError (before anything is written) for a key a name of which is over its limit (MIRROR_LIMITS). */
function checkKeyBytes(key: MirrorKey, path: string): void {
  checkBytes(key.project, MIRROR_LIMITS.project, `${path}.project`);
  checkBytes(key.session, MIRROR_LIMITS.session, `${path}.session`);
  if (key.subpath !== undefined) checkBytes(key.subpath, MIRROR_LIMITS.subpath, `${path}.subpath`);
}

/** A key's name in the log's memory. */
function keyId(key: MirrorKey): string {
  return JSON.stringify([key.project, key.session, key.subpath ?? ""]);
}

function withKey(row: Selectable<MirrorKeysTable>): MirrorKey & MirrorKeyRow {
  const key = { project: row.project_key, session: row.session_key };
  return { ...key, ...toKeyRow(row), ...(row.subpath === "" ? {} : { subpath: row.subpath }) };
}

function toKeyRow(row: Selectable<MirrorKeysTable>): MirrorKeyRow {
  return {
    generation: row.generation,
    nextSeq: row.next_seq,
    foldedSeq: row.folded_seq,
    mtimeMs: Number(row.mtime_ms),
    summary: row.summary,
  };
}
