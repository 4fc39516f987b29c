/**
 * Palimpsest in one package: the pure domain (@palimpsest/core), the views and their provider exports
 * (@palimpsest/projections) and the event store with the session runtime (@palimpsest/store).
 */
export * from "@palimpsest/core";
export * from "@palimpsest/projections";
export * from "@palimpsest/store";
