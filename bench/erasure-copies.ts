/**
 * Where an erased session's content stays on disk, and after which step it is gone: the session of
 * test/runtime/purge-erased.test.ts (every kind of content, a 16 KiB tool output, uncompressed snapshots,
 * a mirrored SDK transcript) beside two sessions kept, its marker counted by a byte scan of the database's
 * files (PostgreSQL: every file of the database's folder, by relation; SQLite: the file and its WAL) before
 * the erasure, after it, after a plain `VACUUM` (PostgreSQL: what the docs used to prescribe) and after
 * `purgeErased`. The PostgreSQL scan reads the files through the server: it needs a superuser.
 */
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels, openEventStore } from "@palimpsest/store";
import pg from "pg";
import { newKey } from "../test/claude-agent-sdk/contract-context.ts";
import { populatedSession, uniqueMarker } from "../test/runtime/erase-fixtures.ts";
import { bigToolOutput, incompressibleSession, mirroredConversation } from "../test/runtime/purge-fixtures.ts";
import { type FileHits, scanPostgresFiles, scanSqliteFiles } from "../test/support/file-scan.ts";
import { progress } from "./stats.ts";

/** The steps after which the files are scanned, in order. */
export const COPY_STAGES = ["planted", "erased", "VACUUM", "purged"] as const;

/** The marker's copies in one relation (or file) after each step; undefined for a step the engine has no use for. */
export interface CopiesRow {
  engine: "postgres" | "sqlite";
  relation: string;
  copies: Partial<Record<(typeof COPY_STAGES)[number], number>>;
}

/** Plants, erases and purges on the fresh database at `url`, scanning after each step. */
export async function runErasureCopiesBench(engine: "postgres" | "sqlite", url: string): Promise<CopiesRow[]> {
  const store = await openEventStore(url);
  const runtime = new Palimpsest({ store, counterFor: createTokenCounter, snapshotEvery: 1 });
  const sdk = await openSessionStore({ url });
  const scan = async (needle: string): Promise<FileHits> =>
    engine === "postgres" ? scanPostgresFiles(url, [needle]) : scanSqliteFiles(url, [needle]);
  const stages = new Map<(typeof COPY_STAGES)[number], FileHits>();
  try {
    const marker = uniqueMarker("bench");
    const session = await populatedSession(runtime, marker);
    await bigToolOutput(session, marker, 0);
    const plain = await incompressibleSession(runtime, marker);
    const key = newKey();
    await mirroredConversation(sdk, key, marker);
    for (const kept of [uniqueMarker("kept1"), uniqueMarker("kept2")]) {
      await bigToolOutput(await populatedSession(runtime, kept), kept, 0);
      await mirroredConversation(sdk, newKey(), kept);
    }
    await new AuditReadModels(store).catchUp();
    if (engine === "postgres") await onPostgres(url, "ANALYZE");
    stages.set("planted", await scan(marker));
    await runtime.erase(session.id);
    await runtime.erase(plain.id);
    await sdk.delete(key);
    stages.set("erased", await scan(marker));
    if (engine === "postgres") {
      await onPostgres(url, "VACUUM");
      stages.set("VACUUM", await scan(marker));
    }
    await runtime.purgeErased();
    stages.set("purged", await scan(marker));
  } finally {
    await sdk.close();
    await runtime.close();
  }
  const relations = [...new Set([...stages.values()].flatMap((hits) => [...hits.keys()]))].sort();
  const rows: CopiesRow[] = [...relations, "all"].map((relation) => ({
    engine,
    relation,
    copies: Object.fromEntries(
      [...stages].map(([stage, hits]) => [
        stage,
        relation === "all" ? [...hits.values()].reduce((a, b) => a + b, 0) : (hits.get(relation) ?? 0),
      ]),
    ),
  }));
  progress(`erasure copies ${engine}: ${JSON.stringify(rows.at(-1)?.copies)}`);
  return rows;
}

/** Runs one statement on its own connection. */
async function onPostgres(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
