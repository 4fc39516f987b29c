/** JSON argument names that hold a file path in common agent tools. */
const PATH_KEYS = new Set(["path", "file", "file_path", "filepath", "filePath", "filename", "notebook_path", "target"]);

const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** Candidate paths: an optional directory, a name and an extension (`src/a.ts`, `./b.json`, `README.md`). */
const PATH = /(?<![\w@.~/-])(?:~|\.{1,2})?\/?(?:[\w@.-]+\/)*[\w@-][\w@.-]*\.([A-Za-z0-9]{1,8})\b/g;
/** Extensions that make a bare name (no directory) count as a file. */
const FILE_EXTENSIONS = new Set(
  "ts tsx js jsx mjs cjs json md mdx py rs go java kt rb ex exs yaml yml toml sql sh css scss html c h cc cpp hpp txt lock cfg ini env xml csv jsonl".split(
    " ",
  ),
);
const COMMIT_CONTEXT = /\b(?:commit|merge|revert|cherry-pick|HEAD is now at|^\s*)\s*\(?([0-9a-f]{7,40})\b/gim;
const PULL_REQUEST = /(?:\bPR\s*#?|\bpull request\s*#?|\/pull\/|(?<![\w&#])#)(\d{1,6})\b/gi;
/** POSIX errno names as Node and libc print them; a bare `E[A-Z]+` word (EPIC, EXIT, EDITOR) is not one. */
const ERRNO =
  "ENOENT|EACCES|EEXIST|EISDIR|ENOTDIR|ENOTEMPTY|EPERM|EPIPE|EADDRINUSE|EADDRNOTAVAIL|ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|ENOMEM|EMFILE|ENFILE|EAGAIN|EBUSY|EINVAL|ENOSPC|EROFS|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|ELOOP|ENAMETOOLONG|EXDEV|ENOEXEC|ENOTSUP|ESRCH|ECHILD|EBADF";
/** Error class names, errno names, Node `ERR_…` codes, TypeScript `TS1234`, Rust `E0308`, fatal signals. */
const ERROR_NAME = new RegExp(
  `(?<![\\w])(?:[A-Z][A-Za-z0-9]*(?:Error|Exception)|${ERRNO}|ERR_[A-Z0-9_]{3,}|TS\\d{4,5}|E\\d{4}|SIG(?:SEGV|ABRT|KILL|TERM|BUS|FPE|ILL|PIPE|INT|HUP|QUIT))(?![\\w])`,
  "g",
);

/** Distinct values in first-seen order. */
function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/** File paths named in `text` (URLs and ids ignored), in first-seen order. */
export function extractPaths(text: string): string[] {
  const plain = text.replace(URL, " ").replace(UUID, " ");
  const paths = [...plain.matchAll(PATH)].filter((m) => m[0].includes("/") || FILE_EXTENSIONS.has(m[1] ?? ""));
  return unique(paths.map((m) => m[0]));
}

/** File paths a tool call's JSON arguments name, by key (`path`, `file_path`, …) or by shape. */
export function extractArgumentPaths(args: string): string[] {
  const found: string[] = [];
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      for (const [key, value] of Object.entries(parsed)) {
        if (PATH_KEYS.has(key) && typeof value === "string" && value.length > 0 && !value.includes("\n")) {
          found.push(value);
        }
      }
    }
  } catch {
    // Not JSON (or capped): the shape-based scan below still applies.
  }
  return unique([...found, ...extractPaths(args)]);
}

/** Commit ids: hex runs of 7–40 characters with a digit and a letter, after "commit" or at a line start. */
export function extractCommits(text: string): string[] {
  const hashes = [...text.matchAll(COMMIT_CONTEXT)].map((m) => m[1] ?? "");
  return unique(hashes.filter((h) => /\d/.test(h) && /[a-f]/.test(h)));
}

/** Pull-request and issue numbers, as `#123`. */
export function extractPullRequests(text: string): string[] {
  return unique([...text.matchAll(PULL_REQUEST)].map((m) => `#${m[1] ?? ""}`));
}

/**
 * Error names and codes: `TypeError`, `SQLException`, `CompileError` (also the last segment of
 * `Ecto.NoResultsError`), `ENOENT`, `ERR_MODULE_NOT_FOUND`, `TS2345`, `E0308`, `SIGSEGV`.
 */
export function extractErrorNames(text: string): string[] {
  return unique([...text.matchAll(ERROR_NAME)].map((m) => m[0]));
}
