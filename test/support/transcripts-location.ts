import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Where the shared real transcripts are, wherever the clone is: `$PALIMPSEST_TRANSCRIPTS` when set, else the
 * first `shared/transcripts` folder found going up from the folder that holds the clone (`../shared/transcripts`,
 * then `../../shared/transcripts`, … up to the filesystem's root).
 */
export type TranscriptsLocation =
  | { found: true; dir: string }
  /** `looked`: the folders that were tried, for the message. */
  | { found: false; looked: string[] };

/** Whether `path` is a folder (a file of that name does not count). */
function isFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/**
 * Finds the transcripts for the clone at `cloneRoot` under `env`. `exists` decides what is a folder (a
 * parameter for the unit test).
 */
export function locateTranscripts(
  cloneRoot: string,
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = isFolder,
): TranscriptsLocation {
  const fromEnv = env.PALIMPSEST_TRANSCRIPTS;
  if (fromEnv !== undefined && fromEnv !== "") {
    const dir = resolve(fromEnv);
    return exists(dir) ? { found: true, dir } : { found: false, looked: [dir] };
  }
  const looked: string[] = [];
  let from = dirname(resolve(cloneRoot));
  for (;;) {
    const dir = join(from, "shared", "transcripts");
    looked.push(dir);
    if (exists(dir)) return { found: true, dir };
    const up = dirname(from);
    if (up === from) return { found: false, looked };
    from = up;
  }
}

/** True when `env` says this is CI (`CI` set to anything but empty, `0` or `false`, as CI services set it). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = (env.CI ?? "").trim().toLowerCase();
  return ci !== "" && ci !== "0" && ci !== "false";
}

/**
 * What to do when the transcripts are not found: the message that names where they were looked for and
 * the variable that points at them, and whether it is a failure (in CI) or a skip (anywhere else).
 */
export function missingTranscripts(
  location: { looked: string[] },
  env: NodeJS.ProcessEnv = process.env,
): { fail: boolean; message: string } {
  const fail = isCi(env);
  const where =
    env.PALIMPSEST_TRANSCRIPTS !== undefined && env.PALIMPSEST_TRANSCRIPTS !== ""
      ? `PALIMPSEST_TRANSCRIPTS=${env.PALIMPSEST_TRANSCRIPTS} is not a folder`
      : `PALIMPSEST_TRANSCRIPTS is not set and no shared/transcripts folder is above the clone (looked in ${location.looked.join(", ")})`;
  const consequence = fail
    ? "CI is set, so this FAILS: CI must run the real-transcript tests"
    : "the real-transcript tests are SKIPPED (CI=true makes this a failure)";
  return { fail, message: `the shared real transcripts are missing: ${where}; ${consequence}` };
}
