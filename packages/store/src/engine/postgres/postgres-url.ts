import { loadOptionalPeer, ValidationError } from "@palimpsest/core";
import type { EngineOpener } from "../engine-opener.ts";
import { explainPostgresOpen } from "./postgres-connect-error.ts";
import { partitionPostgresTables } from "./postgres-partition.ts";

/**
 * PostgreSQL's URLs: `postgres://…` and `postgresql://…`; the adapter and pg, an optional peer dependency,
 * load on open (without pg: a ValidationError saying `npm install pg`).
 */
export const postgresOpener: EngineOpener = {
  engine: "postgres",
  forms: ["postgres://…", "postgresql://…"],
  matches: (url) => url.startsWith("postgres://") || url.startsWith("postgresql://"),
  async open(url, _options, tenant) {
    checkPostgresUrl(url);
    await loadOptionalPeer("a PostgreSQL database URL", "pg", () => import("pg"));
    const { createPostgresPool, postgresAdapter } = await import("./postgres-adapter.ts");
    return postgresAdapter(createPostgresPool(url, tenant), tenant);
  },
  explain: explainPostgresOpen,
  partitionTables: partitionPostgresTables,
};

/**
 * ValidationError at `url` for a PostgreSQL URL that does not parse (a port with a letter in it, a space in
 * the host), naming it with its password hidden; pg would fail on it with a bare `Invalid URL`.
 */
function checkPostgresUrl(url: string): void {
  if (URL.canParse(url)) return;
  const shown = url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, "$1:***@");
  throw new ValidationError(
    `database URL ${shown} is not a valid URL: postgres://user:password@host:port/database`,
    [`url: ${shown}`],
    { path: "url" },
  );
}
