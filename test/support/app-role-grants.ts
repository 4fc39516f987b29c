/**
 * The grants docs/tenants.md gives the application's role on a database the owner migrated, `{role}`
 * standing for the role's name.
 */
export const APP_GRANTS: readonly string[] = [
  "GRANT USAGE ON SCHEMA public TO {role}",
  "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}",
  "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}",
];
