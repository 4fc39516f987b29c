export { boundedId, idHash } from "./bounded-id.ts";
export { checkOptions, type OptionShape, OptionValues, optionsSchema } from "./check-options.ts";
export { describeIssues, formatPath, type ZodLikeError } from "./describe-issues.ts";
export { checkIdLength, ID_LIMITS, type IdKind, idLengthIssue, issueError } from "./id-limits.ts";
export { IdSchema, isWellFormedId } from "./id-schema.ts";
export { BoundedJsonSchema, MAX_JSON_DEPTH, TOO_DEEP, withinJsonDepth } from "./json-depth.ts";
export { checkOptionKeys } from "./option-keys.ts";
export { isPlainRecord, PROTO_KEY, setOwn } from "./own-keys.ts";
export { checkId, parseInput } from "./parse-input.ts";
