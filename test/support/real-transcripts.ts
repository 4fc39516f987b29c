import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

/**
 * Where the shared real transcripts live: `$PALIMPSEST_TRANSCRIPTS` when set, else `../shared/transcripts`
 * next to the repository.
 */
export const TRANSCRIPTS_DIR = resolve(
  process.env.PALIMPSEST_TRANSCRIPTS ?? resolve(import.meta.dirname, "../../../shared/transcripts"),
);

/** True when the shared transcripts folder is present; tests that need it skip (loudly) otherwise. */
export const HAVE_TRANSCRIPTS = existsSync(TRANSCRIPTS_DIR);

if (!HAVE_TRANSCRIPTS) {
  console.warn(
    `\n⚠ ${TRANSCRIPTS_DIR} is absent: the real-transcript tests are SKIPPED (a fresh clone has no ../shared)\n`,
  );
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
