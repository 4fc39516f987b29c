import { costOptimalPolicy, definedFields } from "@palimpsest/core";
import { costBatchedSchedule } from "../micro-schedule.ts";
import type { PolicyDefinition } from "./policy-definition.ts";

/**
 * Compacts when that is cheaper than waiting, by the profile's cache rule and prices; never later than
 * summary, and dropping no more facts than summary would unless they are priced (lostFactUsd). Micro
 * passes beside it are batched by the same cost rule (microBatch).
 */
export const costOptimalDefinition = {
  name: "cost-optimal",
  summary: "summarize when compacting now costs less than waiting (cache and prices), never later than summary",
  create: ({ antiThrash, summarizerPrices, lostFactUsd, summarizerReadsConversation }) =>
    costOptimalPolicy(definedFields({ antiThrash, summarizerPrices, lostFactUsd, summarizerReadsConversation })),
  microSchedule: costBatchedSchedule,
} as const satisfies PolicyDefinition;
