/**
 * Byte scans of a database's files for planted strings: what an erasure must leave nowhere on disk. Reads
 * the files themselves (PostgreSQL: every file of the database's folder, through the server as a
 * superuser; SQLite: the database file, its WAL and its shared-memory index), never rows, so old row
 * versions, freed space in pages and free pages are scanned too.
 */
import { existsSync, readFileSync } from "node:fs";
import pg from "pg";

/** Occurrences of the needles in the files, by where they were found (a relation or a file), nonzero counts only. */
export type FileHits = Map<string, number>;

/** How many bytes of a PostgreSQL file one read brings back. */
const READ_PIECE = 64 * 1024 * 1024;

/** How many times any of `needles` starts in `bytes` before `before` (each needle counted on its own). */
function countIn(bytes: Buffer, needles: readonly string[], before = bytes.length): number {
  let count = 0;
  for (const needle of needles) {
    const pattern = Buffer.from(needle, "utf8");
    for (let at = bytes.indexOf(pattern); at >= 0 && at < before; at = bytes.indexOf(pattern, at + 1)) count++;
  }
  return count;
}

/** The total of a scan's hits. */
export function totalHits(hits: FileHits): number {
  let total = 0;
  for (const count of hits.values()) total += count;
  return total;
}

/**
 * PostgreSQL: runs CHECKPOINT (so every page written so far is in the files), then reads every file in the
 * database's folder, `base/<database oid>/` (heaps, TOAST tables, indexes, their free space and visibility
 * maps, segments past the first gigabyte, the catalogs' own files: all of them, listed by the server), and
 * counts the needles in each. Hits are keyed by relation (`pg_filenode_relation`; a TOAST table or its index
 * is named with its owner, `events (toast)`), or by file name for a file no relation owns now. Needs a
 * superuser connection to the database at `url` (pg_ls_dir, pg_read_binary_file).
 */
export async function scanPostgresFiles(url: string, needles: readonly string[]): Promise<FileHits> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {}); // the database dropped under it: the query in flight fails
  await client.connect();
  try {
    await client.query("CHECKPOINT");
    const { rows } = await client.query<{ file: string; relation: string | null }>(
      `SELECT 'base/' || d.oid || '/' || f AS file,
              coalesce(owner.relname || ' (toast)', owner_of_index.relname || ' (toast index)', c.relname) AS relation
         FROM pg_database d
         CROSS JOIN pg_ls_dir('base/' || d.oid) AS f
         LEFT JOIN pg_class c
           ON c.oid = pg_filenode_relation(0, nullif(substring(f FROM '^[0-9]+'), '')::oid)
         LEFT JOIN pg_class owner ON owner.reltoastrelid = c.oid
         LEFT JOIN pg_index i ON i.indexrelid = c.oid
         LEFT JOIN pg_class toast ON toast.oid = i.indrelid AND toast.relkind = 't'
         LEFT JOIN pg_class owner_of_index ON owner_of_index.reltoastrelid = toast.oid
        WHERE d.datname = current_database()`,
    );
    const hits: FileHits = new Map();
    const overlap = Math.max(0, ...needles.map((n) => Buffer.byteLength(n, "utf8") - 1));
    for (const { file, relation } of rows) {
      let count = 0;
      // In pieces (a segment is up to a gigabyte, more than one bytea holds), each read a needle's length
      // past its end so that an occurrence across two pieces is counted once, in the piece it starts in.
      for (let offset = 0; ; offset += READ_PIECE) {
        const read = await client.query<{ bytes: Buffer | null }>(
          "SELECT pg_read_binary_file($1, $2, $3, true) AS bytes", // missing_ok: a file unlinked since the listing
          [file, offset, READ_PIECE + overlap],
        );
        const bytes = read.rows[0]?.bytes;
        if (bytes === null || bytes === undefined || bytes.length === 0) break;
        count += countIn(bytes, needles, READ_PIECE);
        if (bytes.length <= READ_PIECE) break;
      }
      if (count === 0) continue;
      const where = relation ?? file;
      hits.set(where, (hits.get(where) ?? 0) + count);
    }
    return hits;
  } finally {
    await client.end();
  }
}

/**
 * SQLite: counts the needles in the database file, its `-wal` and its `-shm` (the ones that exist), by file
 * suffix. Reading a file closes it, and closing a file releases every POSIX lock the process holds on it
 * (SQLite's "How To Corrupt An SQLite Database File", 2.2): a connection this process keeps open across
 * the scan then loses its locks on the file and its `-shm`, and once another process has closed its own
 * connection (believing itself the last, it removes the WAL and `-shm`) it reads stale pages. Scan with
 * no connection open in this process when other processes use the file too (test/faults/purge-kills.test.ts).
 */
export function scanSqliteFiles(path: string, needles: readonly string[]): FileHits {
  const hits: FileHits = new Map();
  for (const suffix of ["", "-wal", "-shm"]) {
    const file = `${path}${suffix}`;
    if (!existsSync(file)) continue;
    const count = countIn(readFileSync(file), needles);
    if (count > 0) hits.set(suffix === "" ? "db" : suffix.slice(1), count);
  }
  return hits;
}

/**
 * The byte scan of the database at `url` for `needles`: scanPostgresFiles for a postgres URL (superuser
 * needed), scanSqliteFiles for a SQLite file path.
 */
export function scanDatabaseFiles(url: string, needles: readonly string[]): Promise<FileHits> {
  return url.startsWith("postgres") ? scanPostgresFiles(url, needles) : Promise.resolve(scanSqliteFiles(url, needles));
}
