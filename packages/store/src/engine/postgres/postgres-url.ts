import { loadOptionalPeer } from "@palimpsest/core";
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
    await loadOptionalPeer("a PostgreSQL database URL", "pg", () => import("pg"));
    const { createPostgresPool, postgresAdapter } = await import("./postgres-adapter.ts");
    return postgresAdapter(createPostgresPool(url, tenant), tenant);
  },
  explain: explainPostgresOpen,
  partitionTables: partitionPostgresTables,
};
