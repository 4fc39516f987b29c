import { randomUUID } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { StorageError } from "@palimpsest/core";

/**
 * Writes `text` to `path` through a temporary file in the same folder, flushed to disk, and a rename, so
 * `path` holds the old content or the whole new one, never half of it (an OS crash included). Failures are
 * StorageErrors (code STORAGE) with the cause.
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    const file = await open(temp, "wx");
    try {
      await file.writeFile(text, "utf8");
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (cause) {
    await rm(temp, { force: true }).catch(() => {}); // the write's error is the one to report
    throw new StorageError("write report", `cannot write ${path}: ${(cause as Error).message}`, { cause });
  }
}
