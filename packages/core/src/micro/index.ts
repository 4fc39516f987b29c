export { type Exchange, exchangeAt, isComplete, liveMarker, microCursor, summaryIndices } from "./exchanges.ts";
export { batchCompactions, microInputFor, rollingSummaryReplacement } from "./micro-input.ts";
export type {
  MicroAbsorbPlan,
  MicroDefragPlan,
  MicroInput,
  MicroNoPlan,
  MicroPlan,
  MicroSkipPlan,
} from "./micro-plan-types.ts";
export {
  DEFAULT_MICRO_SETTINGS,
  MICRO_SETTINGS_SHAPE,
  type MicroSettings,
  resolveMicroSettings,
} from "./micro-settings.ts";
export { planMicro } from "./plan-micro.ts";
