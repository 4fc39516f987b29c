import type { Migration } from "kysely";
import { auditFeature } from "../audit/audit-migration.ts";
import { candidateFeature } from "../candidate-store/candidate-feature.ts";
import type { Dialect } from "../engine/dialect.ts";
import { logMigrations } from "../engine/log-migrations.ts";
import { mergeMigrations, type StoreFeature } from "../engine/store-feature.ts";
import { handoffFeature } from "../handoff/handoff-migration.ts";
import { mirrorFeature } from "../mirror/mirror-migration.ts";
import { contentStatisticsMigration } from "./content-statistics.ts";
import { tenantMigration } from "./tenant-migration.ts";

/**
 * Every feature keeping tables beside the log, always all of them: a database records every step it ran,
 * and kysely refuses to open one that recorded a step the code no longer registers. An erasure runs their
 * statements in this order.
 */
export const STORE_FEATURES: readonly StoreFeature[] = [candidateFeature, auditFeature, handoffFeature, mirrorFeature];

/**
 * The log's and every feature's migrations for `dialect`, and the ones that span them (0015, the content
 * columns' statistics; 0016, tenants), merged (a name defined twice throws).
 */
export function storeMigrations(dialect: Dialect): Record<string, Migration> {
  return mergeMigrations([
    logMigrations(dialect),
    ...STORE_FEATURES.map((f) => f.migrations(dialect)),
    contentStatisticsMigration(dialect),
    tenantMigration(dialect),
  ]);
}
