import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { type ImportedSession, type ProviderProfile, parseTranscript } from "@palimpsest/core";
import { createTokenCounter, encodingForModel } from "@palimpsest/core/tokenizer";
import { providerWindow } from "@palimpsest/eval";
import { readSource, sessionCacheModel } from "@palimpsest/eval/testing";
import { locateTranscripts, missingTranscripts } from "./transcripts-location.ts";

const LOCATION = locateTranscripts(resolve(import.meta.dirname, "../.."));

/**
 * Where the shared real transcripts live: `$PALIMPSEST_TRANSCRIPTS` when set, else the first
 * `shared/transcripts` folder above the clone (transcripts-location.ts). When they are absent this is the
 * first place looked, and HAVE_TRANSCRIPTS is false.
 */
export const TRANSCRIPTS_DIR = LOCATION.found ? LOCATION.dir : (LOCATION.looked[0] ?? "");

/**
 * True when the shared transcripts folder is present. When it is absent, a test file that imports this
 * module fails to load under CI (CI=true), and elsewhere its real-transcript tests skip, saying so.
 */
export const HAVE_TRANSCRIPTS = LOCATION.found;

if (!LOCATION.found) {
  const { fail, message } = missingTranscripts(LOCATION);
  if (fail) throw new Error(message);
  console.warn(`\n⚠ ${message}\n`);
}

/** Every transcript file under the shared folder (jsonl, json, traj), as paths relative to it. */
export function realTranscriptFiles(): string[] {
  if (!HAVE_TRANSCRIPTS) return [];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(jsonl|json|traj)$/.test(name)) out.push(relative(TRANSCRIPTS_DIR, path));
    }
  };
  walk(TRANSCRIPTS_DIR);
  return out;
}

/** The sessions of one shared transcript file, parsed as the importers read it. */
export function realSessions(file: string): ImportedSession[] {
  return parseTranscript(readFileSync(join(TRANSCRIPTS_DIR, file), "utf8"), { fileName: basename(file) });
}

/**
 * A context window for replaying `source`: `fraction` of its messages' token total (in the encoding its
 * model gets), at least MIN_WINDOW, so every session long enough to have a middle compacts under it.
 */
export async function windowFor(source: ImportedSession, fraction: number): Promise<number> {
  const counter = await createTokenCounter(encodingForModel(source.model));
  const total = source.items.reduce((n, i) => n + (i.kind === "message" ? counter.countMessage(i.message) : 0), 0);
  return Math.max(MIN_WINDOW, Math.round(total * fraction));
}

/** windowFor as the context window to replay `source` with under `profile` (the store's providerWindow). */
export async function replayWindowFor(
  source: ImportedSession,
  fraction: number,
  profile: ProviderProfile,
): Promise<number> {
  const cacheModel = sessionCacheModel(source, await readSource(source), profile, {});
  return providerWindow(await windowFor(source, fraction), cacheModel);
}

/** The smallest replay window: below it a profile's head and tail leave nothing to compact. */
const MIN_WINDOW = 2_000;

/**
 * Whether a replay of `source` can compact at all: it needs a protected head, a middle and a protected
 * tail, so at least MIN_REQUESTS provider requests (assistant messages); a compaction agent's single
 * request, or a subagent's three, leave no middle.
 */
export function canCompactInReplay(source: ImportedSession): boolean {
  return source.items.filter((i) => i.kind === "message" && i.message.role === "assistant").length >= MIN_REQUESTS;
}

const MIN_REQUESTS = 4;
