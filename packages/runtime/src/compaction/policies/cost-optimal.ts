import { costOptimalPolicy, definedFields } from "@palimpsest/core";
import type { PolicyDefinition } from "./policy-definition.ts";

/** Compacts when that is cheaper than waiting, by the profile's cache rule and prices; never later than summary. */
export const costOptimalDefinition = {
  name: "cost-optimal",
  summary: "summarize when compacting now costs less than waiting (cache and prices), never later than summary",
  create: ({ antiThrash, summarizerPrices }) => costOptimalPolicy(definedFields({ antiThrash, summarizerPrices })),
} as const satisfies PolicyDefinition;
