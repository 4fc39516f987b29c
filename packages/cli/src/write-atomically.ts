import { randomUUID } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { StorageError } from "@palimpsest/core";

/**
 * Writes `text` to `path` through a temporary file in the same folder and a rename, so `path` holds the
 * old content or the whole new one, never half of it. Failures are StorageErrors (code STORAGE) with the cause.
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    await writeFile(temp, text, { encoding: "utf8", flag: "wx" });
    await rename(temp, path);
  } catch (cause) {
    await rm(temp, { force: true }).catch(() => {}); // the write's error is the one to report
    throw new StorageError("write report", `cannot write ${path}: ${(cause as Error).message}`, { cause });
  }
}
