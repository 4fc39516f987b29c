/**
 * Real Claude Code transcript lines for the SessionStore bench: the main transcripts of the shared
 * `claude-code/spotter` folder, one after another, cut into batches as the Claude Agent SDK cuts them
 * (up to 500 entries and 1 MiB of JSON). A key holds a uuid once, so every key can be given the same
 * sequence; a key longer than one pass over the source gets fresh ids (uuids, message and tool-use ids)
 * on every further pass, so each entry is new to it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TRANSCRIPTS_DIR } from "../test/support/real-transcripts.ts";

/** The SDK's batch limits: entries per append and JSON bytes per append. */
export const SDK_BATCH_ENTRIES = 500;
export const SDK_BATCH_BYTES = 1024 * 1024;

/** One entry as the SDK passes it to append: a parsed JSON object. */
export type ClaudeEntry = Record<string, unknown> & { type: string; uuid?: string };

/** One append's worth of entries and their JSON size. */
export interface EntryBatch {
  entries: ClaudeEntry[];
  bytes: number;
}

const SOURCE = join(TRANSCRIPTS_DIR, "claude-code", "spotter");
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const PROVIDER_ID = /\b(msg|toolu|req)_[0-9A-Za-z]+/g;

/** The source lines: every main transcript of the folder (not the subagent files), in name order. */
export function sourceLines(): string[] {
  const files = readdirSync(SOURCE)
    .filter((name) => name.endsWith(".jsonl"))
    .sort();
  if (files.length === 0) throw new Error(`no Claude Code transcripts in ${SOURCE}`);
  return files.flatMap((name) =>
    readFileSync(join(SOURCE, name), "utf8")
      .split("\n")
      .filter((line) => line.trim().length > 0),
  );
}

/** The line with its ids moved into pass `pass`'s own namespace (pass 0: the line as it is). */
function inPass(line: string, pass: number): string {
  if (pass === 0) return line;
  const prefix = pass.toString(16).padStart(8, "0");
  return line.replace(UUID, (uuid) => `${prefix}${uuid.slice(8)}`).replace(PROVIDER_ID, (id) => `${id}_p${pass}`);
}

/**
 * The first `count` entries of a key's sequence (the source lines, pass after pass), as the SDK's
 * batches: a batch closes at 500 entries or before the entry that would take it past 1 MiB.
 */
export function entryBatches(lines: readonly string[], count: number): EntryBatch[] {
  const batches: EntryBatch[] = [];
  let current: EntryBatch = { entries: [], bytes: 0 };
  for (let i = 0; i < count; i++) {
    const text = inPass(lines[i % lines.length] as string, Math.floor(i / lines.length));
    const bytes = Buffer.byteLength(text);
    if (
      current.entries.length === SDK_BATCH_ENTRIES ||
      (current.bytes + bytes > SDK_BATCH_BYTES && current.bytes > 0)
    ) {
      batches.push(current);
      current = { entries: [], bytes: 0 };
    }
    current.entries.push(JSON.parse(text) as ClaudeEntry);
    current.bytes += bytes;
  }
  if (current.entries.length > 0) batches.push(current);
  return batches;
}
