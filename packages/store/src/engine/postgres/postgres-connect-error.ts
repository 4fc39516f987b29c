import { StorageError } from "@palimpsest/core";

/** SQLSTATE of a statement the role may not run (permission denied). */
const INSUFFICIENT_PRIVILEGE = "42501";

/** Node's codes of a server that could not be reached: refused, unknown host, timed out, unreachable, no socket file. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ECONNRESET",
  "ENOENT",
]);

/**
 * SQLSTATEs of a server that would not take the connection: its class 08 (connection exceptions), 28
 * (authentication: a role that does not exist, a wrong password), 3D000 (no such database), 53300 (too
 * many connections) and 57P03 (starting up).
 */
function refusedByServer(code: string): boolean {
  return code.startsWith("08") || code.startsWith("28") || code === "3D000" || code === "53300" || code === "57P03";
}

/**
 * An error from opening or migrating the PostgreSQL database at `url`, reworded when the connection itself
 * failed (the first statement, the migration's, is where pg connects): a StorageError of operation
 * `connect` naming the server, the database and the user (never the password), with the driver's
 * message, cause and retryability; and when the role may not run the migration (an application role
 * opened before the owner created the tables, or before the grants), saying what to do. Anything else is
 * returned as it is.
 */
export function explainPostgresOpen(error: unknown, url: string): unknown {
  const cause = error instanceof StorageError ? error.cause : error;
  const code = (cause as { code?: unknown } | null | undefined)?.code;
  const driverMessage = cause instanceof Error ? cause.message : String(cause);
  if (code === INSUFFICIENT_PRIVILEGE && error instanceof StorageError && error.details.operation === "migrate") {
    return new StorageError(
      "migrate",
      `${driverMessage}: this role may not create or read the store's tables. Open the store once as the ` +
        "tables' owner (it creates and migrates them), then grant this role access: docs/tenants.md, " +
        '"PostgreSQL: enforced by the database"',
      { cause },
    );
  }
  if (typeof code !== "string" || !(UNREACHABLE.has(code) || refusedByServer(code))) return error;
  const retryable = error instanceof StorageError ? error.retryable : false;
  return new StorageError("connect", `cannot connect to ${describeServer(url)}: ${driverMessage}`, {
    cause,
    retryable,
  });
}

/**
 * `PostgreSQL at host:port, database db as user`, from a URL (its password left out), the query's `host`,
 * `port` and `user` taking the place of the URL's as pg takes them; a socket folder is named as such.
 */
function describeServer(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "PostgreSQL";
  }
  const query = parsed.searchParams;
  const host = query.get("host") ?? decoded(parsed.hostname.replace(/^\[(.+)\]$/, "$1"));
  const port = query.get("port") ?? (parsed.port || "5432");
  const database = decoded(parsed.pathname.replace(/^\//, ""));
  const user = query.get("user") ?? decoded(parsed.username);
  const where = host.startsWith("/") ? `the socket in ${host} (port ${port})` : `${host || "localhost"}:${port}`;
  return `PostgreSQL at ${where}${database === "" ? "" : `, database ${database}`}${user === "" ? "" : ` as ${user}`}`;
}

/** A URL part percent-decoded, or as written when its escapes are malformed (pg takes `%zz` as it is). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
