import type pg from "pg";

/**
 * Resolves once a backend of `database` connected as `applicationName` waits for a lock, as the server's
 * pg_stat_activity says (polled every 10 ms: there is no event to wait on); throws after about 45 s, naming
 * `what` ("the append never waited for a lock").
 */
export async function waitingForLock(
  admin: pg.Client,
  database: string,
  applicationName: string,
  what: string,
): Promise<void> {
  for (let waited = 0; ; waited++) {
    const { rows } = await admin.query(
      "SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND wait_event_type = 'Lock'",
      [database, applicationName],
    );
    if (rows.length > 0) return;
    if (waited > 4_500) throw new Error(`${what} never waited for a lock`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
