import { pruneFirstPolicy } from "@palimpsest/core";
import type { PolicyDefinition } from "./policy-definition.ts";

/** Cache-aware: prune old tool outputs when that buys a runway, else summarize; the default where `preferPrune`. */
export const pruneFirstDefinition = {
  name: "prune-first",
  summary: "prune old tool outputs first, summarize when that is not enough",
  preferred: (profile) => profile.preferPrune,
  create: (options) => pruneFirstPolicy(options),
} as const satisfies PolicyDefinition;
