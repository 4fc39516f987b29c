/**
 * What PostgreSQL's row-level security (migration 0016) costs: the same agent turns (session-append's)
 * and the same resume, through the runtime on one database, as the superuser (row security bypassed)
 * and as an application role without BYPASSRLS (every statement checked against the tenant policy),
 * alternated rep by rep. Both name their tenant in every query; only the policy differs.
 */
import { randomUUID } from "node:crypto";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import pg from "pg";
import { cheapCounter } from "../test/faults/fault-workload.ts";
import { runTurns } from "./session-append.ts";
import { median, percentile, progress } from "./stats.ts";

/** One way of connecting: its turns' p50 and p99, and its resumes' median, in ms. */
export interface TenantRlsRow {
  connection: "superuser (bypasses row security)" | "application role (row security enforced)";
  turns: number;
  p50TurnMs: number;
  p99TurnMs: number;
  resumeMs: number;
}

/** The grants docs/tenants.md gives the application role. */
const GRANTS = [
  "GRANT USAGE ON SCHEMA public TO {role}",
  "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}",
  "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}",
];

async function admin(url: string, statements: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Runs the turns and resumes as each connection in turn, `reps` times (after a warm-up), on the database at `url`. */
export async function runTenantRlsBench(url: string, quick: boolean): Promise<TenantRlsRow[]> {
  const role = `palimpsest_bench_app_${randomUUID().slice(0, 8)}`;
  await (await openEventStore(url)).close(); // the owner migrates
  await admin(url, [
    `CREATE ROLE ${role} LOGIN NOSUPERUSER NOBYPASSRLS`,
    ...GRANTS.map((g) => g.replace("{role}", role)),
  ]);
  const roleUrl = new URL(url);
  roleUrl.username = role;
  const connections = [
    { connection: "superuser (bypasses row security)", url },
    { connection: "application role (row security enforced)", url: roleUrl.href },
  ] as const;
  const turns = quick ? 30 : 100;
  const reps = quick ? 3 : 7;
  const times = connections.map(() => ({ turns: [] as number[], resumes: [] as number[] }));
  try {
    for (let rep = -1; rep < reps; rep++) {
      for (const [i, c] of connections.entries()) {
        const store = await openEventStore(c.url, { tenant: "bench" });
        const runtime = new Palimpsest({ store, counterFor: async () => cheapCounter });
        try {
          const sessionId = `rls-${i}-${rep + 1}-${randomUUID()}`;
          const turnMs = await runTurns(runtime, sessionId, turns);
          const start = performance.now();
          await runtime.resume(sessionId);
          const resumeMs = performance.now() - start;
          if (rep < 0) continue; // warm-up
          times[i]?.turns.push(...turnMs);
          times[i]?.resumes.push(resumeMs);
        } finally {
          await runtime.close();
        }
      }
    }
  } finally {
    await admin(url, [`DROP OWNED BY ${role}`, `DROP ROLE ${role}`]);
  }
  return connections.map((c, i) => {
    const t = times[i] ?? { turns: [], resumes: [] };
    const row = {
      connection: c.connection,
      turns: t.turns.length,
      p50TurnMs: percentile(t.turns, 0.5),
      p99TurnMs: percentile(t.turns, 0.99),
      resumeMs: median(t.resumes),
    };
    progress(
      `tenant-rls ${c.connection}: p50 turn ${row.p50TurnMs.toFixed(2)} ms, resume ${row.resumeMs.toFixed(2)} ms`,
    );
    return row;
  });
}
