/**
 * A word that names a file: only path characters (letters, digits, `_ . / ~ @ + % -`), not an option, no
 * glob, variable or URL, and either a `/` with a name in it or a name ending in a letter-led extension of at
 * most six characters, or a dotfile (`a.ts`, `src/x`, `/tmp/out.log`, `.env`; not `spotter-dov.1`, `ecto.migrate`,
 * `/`, `..`, `*.md`, `$HOME/x`, `https://…`).
 * A trailing `:line` or `:line:col` is cut off first. Undefined when the word is not a path.
 */
export function pathWord(word: string): string | undefined {
  const path = word.replace(/:\d+(?::\d+)?$/, "");
  if (!/^[\w./~@+%-]+$/.test(path) || path.startsWith("-")) return undefined;
  if (!/[A-Za-z0-9]/.test(path)) return undefined;
  const name = path.split("/").at(-1) ?? "";
  if (path.includes("/")) return /[A-Za-z0-9_]/.test(path.replace(/^[~.]+/, "")) ? path : undefined;
  return /^[\w@+%~-][\w.@+%~-]*\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(name) || /^\.[A-Za-z][\w.-]*$/.test(name)
    ? path
    : undefined;
}

/** Whether a path is a device or process pseudo-file (`/dev/null`, `/proc/self/…`), never a touched file. */
export function isPseudoFile(path: string): boolean {
  return /^\/(?:dev|proc|sys)\//.test(path);
}
