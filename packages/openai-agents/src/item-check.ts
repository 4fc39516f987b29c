import type { AgentInputItem } from "@openai/agents-core";
import {
  describeIssues,
  idLengthIssue,
  issueError,
  MAX_JSON_DEPTH,
  setOwn,
  ValidationError,
  type ZodLikeError,
} from "@palimpsest/core";

/** The SDK's schema of a model item (`protocol.ModelItem`, a zod schema), loaded with the SDK. */
export interface ItemSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: ZodLikeError };
}

/**
 * Checks items as `addItems` and the history transactions take them, before anything is written: each
 * must be an item the SDK's own schema accepts (an unknown `type` is VALIDATION), with a call id
 * (`callId`, `call_id`) within a tool call id's limit (ID_LIMITS.toolCall), and JSON data that survives
 * the store unchanged. Returns copies as they are stored: own keys as they are (`__proto__` included),
 * but keys whose value is `undefined` are dropped (JSON has no undefined); a `Uint8Array`, `URL`, `Date`
 * or any other non-plain object, a function, a bigint, a non-finite number or an `undefined` array
 * element is VALIDATION naming its path (the Runner's own batches never hold them: it turns bytes into
 * data URLs first).
 */
export function checkItems(schema: ItemSchema, items: unknown, path: string): AgentInputItem[] {
  if (!Array.isArray(items)) {
    throw new ValidationError(`${path} must be an array of items`, [{ path, code: "custom", message: typeof items }], {
      path,
    });
  }
  return items.map((item, i) => {
    const at = `${path}[${i}]`;
    const copy = jsonCopy(item, at);
    const parsed = schema.safeParse(copy);
    if (!parsed.success) {
      const type = (copy as { type?: unknown } | null)?.type;
      throw new ValidationError(
        `${at} is not an item the OpenAI Agents SDK produces${type === undefined ? "" : ` (type ${JSON.stringify(type)})`}`,
        describeIssues(parsed.error, at, 5),
        { cause: parsed.error, path: at },
      );
    }
    for (const field of ["callId", "call_id"]) {
      const tooLong = idLengthIssue("toolCall", (copy as Record<string, unknown>)[field], `${at}.${field}`);
      if (tooLong !== undefined) throw issueError("item", tooLong);
    }
    return copy as AgentInputItem;
  });
}

/**
 * A JSON copy of `value` (undefined-valued keys dropped), or VALIDATION at the first value JSON cannot hold
 * as it is (a Map, a Date, a class instance, NaN: what JSON.stringify would silently turn into something else).
 */
export function jsonCopy(value: unknown, path: string, depth = 0): unknown {
  if (depth > MAX_JSON_DEPTH) throw unsafe(path, `value nested deeper than ${MAX_JSON_DEPTH} levels (or circular)`);
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    throw unsafe(path, String(value));
  }
  if (Array.isArray(value)) {
    return value.map((v, i) => {
      if (v === undefined) throw unsafe(`${path}[${i}]`, "undefined");
      return jsonCopy(v, `${path}[${i}]`, depth + 1);
    });
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw unsafe(path, value.constructor?.name ?? "object");
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (v !== undefined) setOwn(out, key, jsonCopy(v, `${path}.${key}`, depth + 1));
    }
    return out;
  }
  throw unsafe(path, typeof value);
}

function unsafe(path: string, what: string): ValidationError {
  return new ValidationError(
    `${path} is a ${what}, which a JSON store cannot keep as it is (give bytes as a base64 or data: URL string, a URL as its href)`,
    [{ path, code: "custom", message: what }],
    { path },
  );
}
