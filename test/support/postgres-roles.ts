/**
 * Connecting to a test's PostgreSQL database as another role: the URL for a role (naming a tenant on its
 * connections, as the store does), and statements run on one connection of a URL.
 */
import pg from "pg";

/** `url` with `role` as its user, naming `tenant` on its connections when given. */
export function urlAs(url: string, role: string, tenant?: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  if (tenant !== undefined) parsed.searchParams.set("options", `-c palimpsest.tenant=${tenant}`);
  return parsed.href;
}

/** Runs `statements` in order on one connection to `url` (as its role); the last one's rows. */
export async function runStatements<R extends object>(url: string, ...statements: string[]): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let rows: R[] = [];
    for (const statement of statements) rows = (await client.query<R>(statement)).rows;
    return rows;
  } finally {
    await client.end();
  }
}
