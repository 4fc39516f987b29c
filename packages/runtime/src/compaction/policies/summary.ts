import { summaryPolicy } from "@palimpsest/core";
import type { PolicyDefinition } from "./policy-definition.ts";

/** The baseline: over the threshold, summarize the middle between the protected head and tail. */
export const summaryDefinition = {
  name: "summary",
  summary: "summarize the middle between the protected head and tail",
  create: ({ antiThrash }) => summaryPolicy(antiThrash === undefined ? {} : { antiThrash }),
} as const satisfies PolicyDefinition;
