import type { EngineOpener } from "../engine-opener.ts";

/** PostgreSQL's URLs: `postgres://…` and `postgresql://…`; the adapter (and pg) load on open. */
export const postgresOpener: EngineOpener = {
  engine: "postgres",
  forms: ["postgres://…", "postgresql://…"],
  matches: (url) => url.startsWith("postgres://") || url.startsWith("postgresql://"),
  async open(url) {
    const { createPostgresPool, postgresAdapter } = await import("./postgres-adapter.ts");
    return postgresAdapter(createPostgresPool(url));
  },
  explain: (error) => error,
};
