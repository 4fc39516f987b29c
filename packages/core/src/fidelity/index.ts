export { FidelityAccumulator } from "./fidelity-accumulator.ts";
export type { CompactionFidelity, FidelitySummary, RequestRecall } from "./fidelity-figures.ts";
export { FIDELITY_KINDS, type FidelityKind, type PerKind } from "./fidelity-kinds.ts";
export { type FidelityEntry, FidelityTracker } from "./fidelity-tracker.ts";
export { conversationItems, FidelityExtractor } from "./message-items.ts";
export { ReplacementText } from "./replacement-text.ts";
export { type SourceCompactionFidelity, type SourceFidelity, sourceFidelity } from "./source-fidelity.ts";
