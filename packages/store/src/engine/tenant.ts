import { checkId } from "@palimpsest/core";

/** The tenant of a store opened without one, and of every row written before tenants existed (migration 0016). */
export const DEFAULT_TENANT = "default";

/** The `tenant` option of an opener, checked (ValidationError naming `tenant` for a non-id), or DEFAULT_TENANT. */
export function tenantOption(tenant: unknown): string {
  return tenant === undefined ? DEFAULT_TENANT : checkId(tenant, "tenant", "tenant");
}
