import {
  ConcurrencyConflict,
  type CountedMessage,
  checkId,
  checkOptionKeys,
  definedFields,
  derivedId,
  type SessionCommand,
  type SessionState,
  supersedeFor,
  type TokenCounter,
  ValidationError,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import { type MessageInput, toMessage } from "./message-input.ts";

/**
 * A rewrite of the view by its owner, committed as one batch: a supersede of `targets` (recorded with
 * its mode, so `expand`, history and audit keep the originals), then `append` in the same store append.
 * An adapter's destructive calls (pop an item, clear a session, replace a suffix, regroup items) and a
 * provider's own compaction become rewrites, never deletions.
 */
export interface RewriteRequest {
  /**
   * `retract`: withdrawn on purpose (it may withdraw tool calls still waiting for results, and the last
   * exchange); `import`: a compaction that happened at the source (a provider's compaction item).
   */
  mode: "retract" | "import";
  /** Live message ids that leave the view (at least one). */
  targets: readonly string[];
  /** Put where the first target stood: `stub`s of a retraction, the `summary` of an import. */
  replacements?: readonly MessageInput[];
  /** Appended after the supersede, decided on the view it leaves. */
  append?: readonly MessageInput[];
  turnId?: string;
  /**
   * A retry with the same key and request returns the original events (ids left out are derived from
   * the key); another request under a used key is IDEMPOTENCY_MISMATCH and writes nothing.
   */
  idempotencyKey?: string;
  /** The view version the request was computed from; a moved view is CONCURRENCY_CONFLICT. Default: the current one. */
  viewVersion?: number;
  /**
   * The log's last seq the request was computed from: when any event landed after it (another process
   * appended), CONCURRENCY_CONFLICT (`stream-version`) and nothing is written, instead of the rewrite
   * being decided again on the moved log. For a rewrite that is only right on the tail it saw (pop the
   * newest item, replace an expected suffix). Default: decided again on whatever the log holds.
   */
  expectedSeq?: number;
  /** `producer.policy` of the compaction (default: the mode). */
  policy?: string;
}

const REQUEST_KEYS: { [K in keyof Required<RewriteRequest>]: true } = {
  mode: true,
  targets: true,
  replacements: true,
  append: true,
  turnId: true,
  idempotencyKey: true,
  viewVersion: true,
  expectedSeq: true,
  policy: true,
};

/** A checked rewrite, its messages counted: turns a state into the commands it decides. */
export type RewriteCommands = (state: Readonly<SessionState>) => SessionCommand[];

/**
 * Checks a rewrite request (ValidationError naming the field) and counts its messages once with the
 * session's tokenizer; the returned function builds the supersede and append on the state it is
 * decided on (its basis, stats and the tokens of the targets).
 */
export async function prepareRewrite(request: RewriteRequest, counter: TokenCounter): Promise<RewriteCommands> {
  checkRequest(request);
  const key = request.idempotencyKey;
  const counted = async (list: readonly MessageInput[] | undefined, field: string, tag: string) => {
    const out: CountedMessage[] = [];
    for (const [i, input] of (list ?? []).entries()) {
      const message = toMessage(input, `${field}[${i}]`, key === undefined ? undefined : derivedId(key, `${tag}${i}`));
      out.push({ message, tokens: await counter.countMessageAsync(message) });
    }
    return out;
  };
  const replacements = await counted(request.replacements, "replacements", "r");
  const append = await counted(request.append, "append", "a");
  const compactionId = key === undefined ? uuidv7() : derivedId(key, "rewrite");
  const kind = request.mode === "import" ? "summary" : "stub";
  return (state) => {
    if (request.expectedSeq !== undefined && state.lastSeq !== request.expectedSeq) {
      throw new ConcurrencyConflict(state.sessionId, "stream-version", request.expectedSeq, state.lastSeq);
    }
    // Decided again on every retry: the basis (unless given) and stats are the state's at that attempt.
    const supersede = supersedeFor(state, {
      compactionId,
      mode: request.mode,
      trigger: request.mode === "import" ? "import" : "manual",
      producer: { policy: request.policy ?? request.mode },
      targets: request.targets,
      replacements: replacements.map((r) => ({ kind, ...r })),
      ...(request.viewVersion === undefined ? {} : { basis: { viewVersion: request.viewVersion } }),
    });
    const commands: SessionCommand[] = [{ type: "supersede", data: supersede }];
    if (append.length > 0) {
      commands.push({
        type: "append-messages",
        messages: append,
        ...definedFields({ turnId: request.turnId }),
      });
    }
    return commands;
  };
}

/** The request's shape, before anything is counted: exact keys, a known mode, ids where ids go. */
function checkRequest(request: RewriteRequest): void {
  if (request === null || typeof request !== "object") {
    throw new ValidationError("a rewrite request must be an object", [`request: ${typeof request}`]);
  }
  checkOptionKeys("rewrite", request, REQUEST_KEYS);
  if (request.mode !== "retract" && request.mode !== "import") {
    throw new ValidationError("a rewrite's mode is retract or import", [`mode: ${String(request.mode)}`], {
      path: "mode",
    });
  }
  if (!Array.isArray(request.targets) || request.targets.length === 0) {
    throw new ValidationError("a rewrite needs at least one target", ["targets: expected a non-empty array"], {
      path: "targets",
    });
  }
  for (const [i, id] of request.targets.entries()) checkId(id, `targets[${i}]`);
  for (const field of ["replacements", "append"] as const) {
    if (request[field] !== undefined && !Array.isArray(request[field])) {
      throw new ValidationError(`${field} must be an array of messages`, [`${field}: ${typeof request[field]}`], {
        path: field,
      });
    }
  }
  if (request.idempotencyKey !== undefined) checkId(request.idempotencyKey, "idempotencyKey");
  if (request.turnId !== undefined) checkId(request.turnId, "turnId");
  for (const field of ["viewVersion", "expectedSeq"] as const) {
    if (request[field] !== undefined && !Number.isInteger(request[field])) {
      throw new ValidationError(`${field} must be an integer`, [`${field}: ${request[field]}`], { path: field });
    }
  }
}
