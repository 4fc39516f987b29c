/** POSIX errno names as Node and libc print them (`ENOENT: no such file or directory`); a bare `E…` word (EPIC, EXIT) is not one. */
const ERRNO =
  "ENOENT|EACCES|EEXIST|EISDIR|ENOTDIR|ENOTEMPTY|EPERM|EPIPE|EADDRINUSE|EADDRNOTAVAIL|ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|ENOMEM|EMFILE|ENFILE|EAGAIN|EBUSY|EINVAL|ENOSPC|EROFS|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|ELOOP|ENAMETOOLONG|EXDEV|ENOEXEC|ENOTSUP|ESRCH|ECHILD|EBADF";

/** Where an error name stands in a text; the first capture group is the name. */
const PATTERNS: readonly RegExp[] = [
  // TypeError, OSError, SQLException, Ecto.NoResultsError (the last segment); not a bare Error or Exception.
  /(?<![\w])(?:[A-Za-z][\w]*\.)*([A-Z][A-Za-z0-9]*(?:Error|Exception))(?![\w])/g,
  new RegExp(`(?<![\\w])(${ERRNO})(?![\\w])`, "g"),
  /(?<![\w])(ERR_[A-Z0-9_]{3,})(?![\w])/g,
  /(?<![\w])error (TS\d{4,5})(?![\w])/g,
  /(?<![\w])error\[(E\d{4})\]/g,
  /(?<![\w])(SIG(?:SEGV|ABRT|KILL|TERM|BUS|FPE|ILL|PIPE|INT|HUP|QUIT))(?![\w])/g,
];

/**
 * The error names in a text, distinct, by pattern then order of appearance: exception and error class names
 * (`TypeError`, `OSError`, `ModuleNotFoundError`; `Ecto.NoResultsError` gives `NoResultsError`; not a bare
 * `Error` or `Exception`), errno names (`ENOENT`, a fixed list of 33), Node error codes
 * (`ERR_MODULE_NOT_FOUND`), TypeScript diagnostics (`error TS2345` gives `TS2345`), Rust error codes
 * (`error[E0308]` gives `E0308`) and fatal signals (`SIGSEGV`). Exit codes name nothing and are not counted.
 * The one definition fidelity counts and the offline summary keeps.
 */
export function errorNames(text: string): string[] {
  const found = new Set<string>();
  for (const pattern of PATTERNS) for (const m of text.matchAll(pattern)) if (m[1] !== undefined) found.add(m[1]);
  return [...found];
}
