/**
 * Palimpsest in one package: the pure domain (@palimpsest/core), the views and their provider exports
 * (@palimpsest/projections), the storage engine (@palimpsest/store), the agent runtime
 * (@palimpsest/runtime) and the evaluation kit (@palimpsest/eval).
 */
export * from "@palimpsest/core";
export * from "@palimpsest/eval";
export * from "@palimpsest/projections";
export * from "@palimpsest/runtime";
export * from "@palimpsest/store";
