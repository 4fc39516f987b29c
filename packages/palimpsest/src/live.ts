/** Live views over the log (re-exported from @palimpsest/projections/live). */
export * from "@palimpsest/projections/live";
