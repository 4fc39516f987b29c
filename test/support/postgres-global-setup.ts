/**
 * Vitest global setup: finds the PostgreSQL server for the whole run once. TEST_DATABASE_URL first;
 * else one throwaway container started with testcontainers where a Docker engine exists (its URL is
 * handed to the test processes through TEST_DATABASE_URL, and it is stopped after the run); else none,
 * and the reason goes to the tests in PALIMPSEST_PG_SKIP so that each PostgreSQL suite skips loudly.
 */
export default async function setup(): Promise<() => Promise<void>> {
  if ((process.env.TEST_DATABASE_URL ?? "") !== "") return async () => {};
  try {
    const { PostgreSqlContainer } = await import("@testcontainers/postgresql");
    const container = await new PostgreSqlContainer("postgres:15").start();
    process.env.TEST_DATABASE_URL = container.getConnectionUri();
    return async () => void (await container.stop());
  } catch (error) {
    process.env.PALIMPSEST_PG_SKIP = `TEST_DATABASE_URL is not set and testcontainers could not start PostgreSQL (${String(error)})`;
    console.warn(`\n!!! SKIPPING every PostgreSQL suite: ${process.env.PALIMPSEST_PG_SKIP} !!!\n`);
    return async () => {};
  }
}
