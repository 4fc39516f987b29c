import { ValidationError } from "../errors.ts";
import { EVENT_KINDS, type EventType } from "./event-types.ts";

/** Turns data stored at `fromVersion` into data of `fromVersion + 1`. */
export type Upcaster = (data: unknown) => unknown;

/** Registered upcasters, keyed `${type}@${fromVersion}`. Empty while every kind is at version 1. */
const upcasters = new Map<string, Upcaster>();

/** Registers how to lift one event kind from `fromVersion` to the next version. */
export function registerUpcaster(type: EventType, fromVersion: number, upcaster: Upcaster): void {
  upcasters.set(`${type}@${fromVersion}`, upcaster);
}

/** Lifts stored data to the kind's current version, step by step; throws when a step is missing. */
export function upcast(type: EventType, schemaVersion: number, data: unknown): unknown {
  const target = EVENT_KINDS[type].version;
  if (schemaVersion > target) {
    throw new ValidationError(`event ${type} has schema version ${schemaVersion}, newer than this code (${target})`, [
      "upgrade palimpsest to read this log",
    ]);
  }
  let current = data;
  for (let v = schemaVersion; v < target; v++) {
    const step = upcasters.get(`${type}@${v}`);
    if (step === undefined) {
      throw new ValidationError(`no upcaster for ${type} from version ${v}`, [`register one for ${type}@${v}`]);
    }
    current = step(current);
  }
  return current;
}
