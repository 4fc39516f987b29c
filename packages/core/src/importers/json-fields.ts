/** The file name without folders and without its last extension, for ids derived from a file. */
export function fileStem(fileName: string | undefined): string | undefined {
  if (fileName === undefined) return undefined;
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const dot = base.lastIndexOf(".");
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return stem.length > 0 ? stem : undefined;
}

/** A short, stable hex digest of a text (FNV-1a, 32 bit): an id for sources that carry none. */
export function textDigest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}
