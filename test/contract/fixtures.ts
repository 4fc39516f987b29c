/** The contract suite's event builders, for this repository's other tests (no vitest: child scripts use them too). */
export {
  newSessionId,
  started,
  summaryEvent,
  textOf,
  userMessage,
} from "../../packages/store/src/contract/fixtures.ts";
