import { TENANT_COLUMN } from "./tenant-scope.ts";

const QUOTED_TENANT = `"${TENANT_COLUMN}"`;

/**
 * A key's column list (the text between its parentheses, identifiers as the engine prints them) with the
 * tenant column added, as migration 0016 keys every tenant table: a primary or unique key keeps its first
 * column first (`session_id` where it has one, so the tables still distribute by session) and takes the
 * tenant second; an index that is no key leads with the tenant, unless it leads with `session_id`
 * (already one session's rows: it keeps its columns). A list holding the tenant column is kept as it is.
 */
export function withTenantColumn(columns: string, unique: boolean): string {
  const list = columns.split(",").map((c) => c.trim());
  if (list.some((c) => c.split(" ")[0]?.replaceAll('"', "") === TENANT_COLUMN)) return columns;
  const first = list[0] ?? "";
  const tenant = first.startsWith('"') ? QUOTED_TENANT : TENANT_COLUMN;
  if (unique) return [first, tenant, ...list.slice(1)].join(", ");
  if (first.replaceAll('"', "") === "session_id") return columns;
  return [tenant, ...list].join(", ");
}
