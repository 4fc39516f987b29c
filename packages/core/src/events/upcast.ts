import { ValidationError } from "../errors.ts";
import { EVENT_KINDS, type EventKind, type EventType } from "./event-types.ts";

/** Lifts stored data to the kind's current version, step by step; throws when a step is missing. */
export function upcast(type: EventType, schemaVersion: number, data: unknown): unknown {
  const kind: EventKind = EVENT_KINDS[type];
  if (schemaVersion > kind.version) {
    throw new ValidationError(
      `event ${type} has schema version ${schemaVersion}, newer than this code (${kind.version})`,
      ["upgrade palimpsest to read this log"],
    );
  }
  let current = data;
  for (let v = schemaVersion; v < kind.version; v++) {
    const step = kind.upcasters?.[v - 1];
    if (step === undefined) {
      throw new ValidationError(`no upcaster for ${type} from version ${v}`, [
        `add one to EVENT_KINDS["${type}"].upcasters`,
      ]);
    }
    current = step(current);
  }
  return current;
}
