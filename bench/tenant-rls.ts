/**
 * What PostgreSQL's row-level security (migration 0016) costs: the same agent turns (session-append's)
 * and the same resume, through the runtime on one database, as the superuser (row security bypassed)
 * and as an application role without BYPASSRLS (every statement checked against the tenant policy),
 * alternated rep by rep (turns-and-resume.ts). Both name their tenant in every query; only the policy differs.
 */
import { randomUUID } from "node:crypto";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import pg from "pg";
import { cheapCounter } from "../test/faults/fault-workload.ts";
import { progress } from "./stats.ts";
import { alternateTurnsAndResume, type TurnsAndResume } from "./turns-and-resume.ts";

/** One way of connecting, with its figures. */
export interface TenantRlsRow extends TurnsAndResume {
  connection: "superuser (bypasses row security)" | "application role (row security enforced)";
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

/** Runs the turns and resumes as each connection in turn (turns-and-resume.ts) on the database at `url`. */
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
  try {
    const figures = await alternateTurnsAndResume(
      connections.map((c) => ({
        open: async () => {
          const store = await openEventStore(c.url, { tenant: "bench" });
          const runtime = new Palimpsest({ store, counterFor: async () => cheapCounter });
          return { writer: runtime, reader: runtime };
        },
      })),
      quick,
    );
    return connections.map((c, i) => {
      const row = { connection: c.connection, ...(figures[i] as TurnsAndResume) };
      progress(
        `tenant-rls ${c.connection}: p50 turn ${row.p50TurnMs.toFixed(2)} ms, resume ${row.resumeMs.toFixed(2)} ms`,
      );
      return row;
    });
  } finally {
    await admin(url, [`DROP OWNED BY ${role}`, `DROP ROLE ${role}`]);
  }
}
