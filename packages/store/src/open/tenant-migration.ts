import type { Kysely, Migration } from "kysely";
import type { Dialect } from "../engine/dialect.ts";
import { TENANT_TABLES } from "../engine/tenant-scope.ts";

/**
 * Migration 0016: every table holds one tenant's rows. Each gets the tenant column (existing rows in the
 * `default` tenant) and keys that hold it (Dialect.keyByTenant), so two tenants may use the same session
 * id without either learning of the other; on PostgreSQL, row-level security confines each connection to
 * its tenant's rows. Queries name the tenant on both engines (TenantScope).
 */
export function tenantMigration(dialect: Dialect): Record<string, Migration> {
  return {
    "0016_tenants": {
      async up(db: Kysely<unknown>) {
        for (const table of TENANT_TABLES) await dialect.keyByTenant(db, table);
      },
    },
  };
}
