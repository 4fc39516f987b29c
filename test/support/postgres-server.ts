/** A PostgreSQL server to create scratch databases on, or why there is none (see postgres-global-setup.ts). */
export type PostgresServer = { url: string } | { skip: string };

/** The server the global setup found for this run; warns loudly in each file whose PostgreSQL suite skips. */
export function postgresServer(): PostgresServer {
  const url = process.env.TEST_DATABASE_URL ?? "";
  if (url !== "") return { url };
  const skip = process.env.PALIMPSEST_PG_SKIP ?? "TEST_DATABASE_URL is not set";
  console.warn(`\n!!! SKIPPING the PostgreSQL suite of this file: ${skip} !!!\n`);
  return { skip };
}
