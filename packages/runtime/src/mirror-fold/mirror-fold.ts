import { createHash } from "node:crypto";
import {
  definedFields,
  IdSchema,
  type ImportedSession,
  type InvariantRule,
  InvariantViolation,
  isPalimpsestError,
  MIRROR_LIMITS,
  type MirrorKey,
  type MirrorLogPort,
  parseTranscript,
  utf8Bytes,
  uuidOfMirrorKey,
  ValidationError,
} from "@palimpsest/core";
import { type ImportedLog, importSession } from "../import/import-sessions.ts";
import type { Palimpsest } from "../palimpsest/palimpsest.ts";
import { eraseSessions, KEY_DELETED } from "./mirror-erase.ts";
import { type FoldThread, type MirrorFoldMemory, readSinceLastFold } from "./mirror-fold-memory.ts";

/** How a fold treats the key's last assistant message. */
export interface MirrorFoldOptions {
  /**
   * False while entries are still arriving: each thread's trailing assistant message is held back (its
   * next content block may be in the next batch). True folds everything (the key is quiet, or a reader
   * wants it now); a message that grows afterwards is revised.
   */
  settle: boolean;
  /**
   * Called for each line (its seq, 1-based, in the key's `generation`) the fold cannot take: a uuid that is
   * no id (NUL, lone surrogate, empty, over MIRROR_LIMITS.uuid bytes), or a line the Claude Code importer
   * refuses. It is left out of the fold (it stays stored, and `load` returns it), so the lines after it are
   * still folded. Not called again for a line an earlier fold folded past (the key's folded seq).
   */
  onUnreadable?: (seq: number, error: unknown, generation: number) => void;
  /**
   * What this process kept of the key from its last fold (MirrorFolder keeps one per key): the fold reads
   * and parses only the entries stored since, and writes each session from the state it left. Without it
   * the fold reads the whole key.
   */
  memory?: MirrorFoldMemory;
}

/**
 * A stable Palimpsest session id for a thread of a mirrored key: the same key, generation and thread
 * always name the same session, and a generation after an erasure names new ones (an erased id is never
 * reused).
 */
export function mirrorSessionId(key: MirrorKey, generation: number, externalId: string): string {
  const name = JSON.stringify([key.project, key.session, key.subpath ?? "", generation, externalId]);
  const hex = createHash("sha256").update(`palimpsest-mirror:claude-code:${name}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-b${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Folds a mirrored Claude Code key into Palimpsest sessions exactly as `palimpsest import` reads the
 * same JSONL file (the key's entries, in stored order, are that file): the main thread is one session,
 * sidechain and subagent threads child sessions linked to the main key's session. Each session gets the
 * items its log does not hold yet, in one append; a message the source changed since is revised.
 * Idempotent, and safe beside another process folding the same key. A fold of a key erased meanwhile
 * erases what it wrote; a session handed off in Palimpsest takes no more folds.
 */
export async function foldMirrorKey(
  runtime: Palimpsest,
  log: MirrorLogPort,
  key: MirrorKey,
  options: MirrorFoldOptions,
): Promise<void> {
  const row = await log.key(key);
  // Nothing written, or every entry folded (recorded only when nothing was held back): nothing to do.
  if (row === undefined || row.foldedSeq === row.nextSeq) return;
  const main: MirrorKey = { project: key.project, session: key.session };
  const mainGeneration = key.subpath === undefined ? row.generation : ((await log.key(main))?.generation ?? 0);
  const report = (seq: number, error: unknown) => {
    if (seq > row.foldedSeq) options.onUnreadable?.(seq, error, row.generation);
  };
  const fileName = fileNameOf(key);
  const read =
    (options.memory === undefined
      ? undefined
      : await readSinceLastFold(log, key, row.generation, fileName, options.memory, (seq, entry, value) =>
          leftOut(entry.uuid, value, `${fileName}:${seq}`, (error) => report(seq, error)),
        )) ?? (await readWhole(log, key, row.generation, fileName, report));
  const own = new Set(read.threads.map((t) => t.session.externalId));
  const idOf = (externalId: string): string =>
    own.has(externalId)
      ? mirrorSessionId(key, row.generation, externalId)
      : mirrorSessionId(main, mainGeneration, externalId);
  let heldBack = false;
  const sessionIds: string[] = [];
  const erasedMeanwhile = async () => {
    await eraseSessions(runtime, sessionIds, KEY_DELETED);
  };
  for (const { session: source, start, final, kept } of read.threads) {
    const items = options.settle ? source.items : withoutOpenTail(source.items);
    heldBack ||= items.length < source.items.length;
    const sessionId = idOf(source.externalId);
    sessionIds.push(sessionId);
    if (items.length === 0) continue;
    if (kept?.registered !== true) {
      if (!(await log.registerSession(key, row.generation, sessionId))) return erasedMeanwhile();
      if (kept !== undefined) kept.registered = true;
    }
    const parentSessionId = source.parentExternalId === undefined ? undefined : idOf(source.parentExternalId);
    try {
      await foldSession(runtime, { ...source, items }, sessionId, parentSessionId, kept?.log);
      if (kept !== undefined) kept.inLog = start + Math.min(items.length, final - start);
    } catch (error) {
      if (isRule(error, "session-erased")) return erasedMeanwhile();
      // Handed off in Palimpsest: its successor carries the view on; the key's entries stay in the mirror.
      if (isRule(error, "session-handed-off")) continue;
      throw error;
    }
  }
  // Whoever finishes last erases: a delete that bumped the generation while this fold wrote may have
  // looked for these sessions before they existed.
  if ((await log.key(key))?.generation !== row.generation) return erasedMeanwhile();
  if (!heldBack) await log.markFolded(key, row.generation, read.seq);
}

/** Every entry of the key read and parsed at once (parseReadable): each thread's items from the first. */
async function readWhole(
  log: MirrorLogPort,
  key: MirrorKey,
  generation: number,
  fileName: string,
  report: (seq: number, error: unknown) => void,
): Promise<{ threads: FoldThread[]; seq: number }> {
  const lines = await log.entryRows(key, generation);
  const sessions = parseReadable(lines, fileName, report);
  return {
    threads: sessions.map((session) => ({ session, start: 0, final: session.items.length, kept: undefined })),
    seq: lines.length,
  };
}

/** Lines the importer refuses that a fold leaves out at most: past this many, the key's log is taken for something else than Claude Code's. */
const MAX_UNREADABLE = 100;

/**
 * The key's lines parsed as the importer parses the file, leaving out (a blank line in its place keeps
 * the others' numbers, which are their seqs) each user, assistant or system line whose uuid is no id
 * Palimpsest can store (other lines make no message: their uuids are left to the importer), and each line
 * the importer refuses: the line its error names, or, for an error naming none (an id a message check
 * refused), the line whose addition first makes the parse fail.
 */
function parseReadable(
  rows: readonly { text: string; uuid: string | null }[],
  fileName: string,
  report: (seq: number, error: unknown) => void,
): ImportedSession[] {
  const lines = rows.map((row) => row.text);
  for (const [i, row] of rows.entries()) {
    if (leftOut(row.uuid, JSON.parse(row.text), `${fileName}:${i + 1}`, (error) => report(i + 1, error))) lines[i] = "";
  }
  const parse = (upTo: number) => parseTranscript(lines.slice(0, upTo).join("\n"), { format: "claude-code", fileName });
  for (let left = 0; ; left++) {
    try {
      return parse(lines.length);
    } catch (error) {
      if (!isPalimpsestError(error, "VALIDATION") || left >= MAX_UNREADABLE) throw error;
      const seq = unreadableLine(error, fileName) ?? firstFailingLine(lines.length, parse);
      if (seq === undefined || lines[seq - 1] === "") throw error;
      lines[seq - 1] = "";
      report(seq, error);
    }
  }
}

/**
 * Whether a line is left out before it is parsed: a user, assistant or system line (`value`) whose uuid
 * is no id Palimpsest can store; `report` is told why, with the line's `path`.
 */
function leftOut(uuid: string | null, value: unknown, path: string, report: (error: ValidationError) => void): boolean {
  const problem = uuid === null ? undefined : uuidProblem(uuid);
  if (problem === undefined || !FOLDED_TYPES.has((value as { type?: unknown } | null)?.type)) return false;
  report(new ValidationError(`${path}: ${problem}; the line is left out of the fold`, [problem], { path }));
  return true;
}

/** The types of line the importer folds (user and assistant messages, compaction markers), whose uuid names what it makes. */
const FOLDED_TYPES: ReadonlySet<unknown> = new Set(["user", "assistant", "system"]);

/**
 * Why a stored uuid (its key: mirrorUuidKey) cannot name a message: not an id (a NUL, a lone surrogate,
 * empty), or over MIRROR_LIMITS.uuid bytes (stored before the limit); undefined when it can.
 */
function uuidProblem(key: string): string | undefined {
  const parsed = IdSchema.safeParse(uuidOfMirrorKey(key));
  if (!parsed.success) return `its uuid is not an id: ${parsed.error.issues[0]?.message ?? "refused"}`;
  if (utf8Bytes(key) > MIRROR_LIMITS.uuid) return `its uuid is over ${MIRROR_LIMITS.uuid} bytes`;
  return undefined;
}

/**
 * The first line (1-based) whose addition makes the parse of the lines up to it fail, by bisection (the
 * parse of all `count` lines fails); undefined when no prefix fails (the failure is not any one line's).
 */
function firstFailingLine(count: number, parse: (upTo: number) => unknown): number | undefined {
  const fails = (upTo: number): boolean => {
    try {
      parse(upTo);
      return false;
    } catch {
      return true;
    }
  };
  let low = 1;
  let high = count;
  if (!fails(high)) return undefined;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (fails(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The line a ValidationError of the importer names (`<file>:<line>`), if it names one. */
function unreadableLine(error: unknown, fileName: string): number | undefined {
  if (!isPalimpsestError(error, "VALIDATION")) return undefined;
  const path = (error.details as { path?: string }).path ?? "";
  const line = path.startsWith(`${fileName}:`) ? Number(path.slice(fileName.length + 1)) : Number.NaN;
  return Number.isInteger(line) && line > 0 ? line : undefined;
}

/** The JSONL file name the key's entries would have on disk: the importer reads subagent ids from it. */
function fileNameOf(key: MirrorKey): string {
  return key.subpath === undefined ? `${key.session}.jsonl` : `${key.session}/${key.subpath}.jsonl`;
}

/** The items without a trailing assistant message (its next content block may still be on its way). */
function withoutOpenTail(items: ImportedSession["items"]): ImportedSession["items"] {
  const last = items.at(-1);
  return last?.kind === "message" && last.message.role === "assistant" ? items.slice(0, -1) : items;
}

async function foldSession(
  runtime: Palimpsest,
  source: ImportedSession,
  sessionId: string,
  parentSessionId: string | undefined,
  log: ImportedLog | undefined,
): Promise<void> {
  // Another process folding the same key between this fold's read and its append: importSession reads again.
  await importSession(runtime, source, { sessionId, revise: true, ...definedFields({ parentSessionId, log }) });
}

function isRule(error: unknown, rule: InvariantRule): boolean {
  return error instanceof InvariantViolation && error.details.rule === rule;
}
