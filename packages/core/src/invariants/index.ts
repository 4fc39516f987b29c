export { checkToolPairs, checkUniqueIds, type ViewViolation } from "./tool-pairs.ts";
