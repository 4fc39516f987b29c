import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { NotFoundError, TRANSCRIPT_EXTENSIONS, ValidationError } from "@palimpsest/core";
import type { CliIo } from "./cli-io.ts";

/** How many of a folder's transcript-looking files a "this is a directory" error names. */
const NAMED_FILES = 5;

/**
 * Reads the transcript file a command was given (`import`, `replay`, `eval`): a missing file is
 * NOT_FOUND; a directory is VALIDATION saying so and naming the transcript files in it (the formats'
 * extensions: .jsonl, .json, .traj), since each command takes one file.
 */
export async function readTranscriptFile(io: CliIo, file: string): Promise<string> {
  const path = resolve(io.cwd, file);
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "EISDIR") throw new NotFoundError("file", file, { cause });
    const inside = (await readdir(path).catch(() => [] as string[]))
      .filter((n) => TRANSCRIPT_EXTENSIONS.some((extension) => n.endsWith(extension)))
      .sort();
    const shown = inside.slice(0, NAMED_FILES).map((n) => join(file, n));
    const kinds = `${TRANSCRIPT_EXTENSIONS.slice(0, -1).join(", ")} or ${TRANSCRIPT_EXTENSIONS.at(-1)}`;
    throw new ValidationError(`${file} is a directory: give one transcript file (a ${kinds} file)`, [
      inside.length === 0
        ? `it holds no ${kinds} file`
        : `it holds ${inside.length} transcript-looking file(s): ${shown.join(", ")}${inside.length > NAMED_FILES ? ", …" : ""}`,
    ]);
  }
}
