export type { InterruptedRun, InterruptedState, SaveInterruptedRunOptions } from "./interrupted-run.ts";
export type { ItemSchema } from "./item-check.ts";
export {
  type AgentsCompactionSettings,
  type OpenAgentsSessionOptions,
  openAgentsSession,
} from "./open-agents-session.ts";
export {
  type AgentsSdk,
  type AgentsSessionParts,
  type ForkPoint,
  PalimpsestAgentsSession,
} from "./palimpsest-agents-session.ts";
