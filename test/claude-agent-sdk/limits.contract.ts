import type { SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import type { PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { MIRROR_LIMITS, ValidationError } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { TranscriptWriter, text } from "./claude-code-lines.ts";
import { type ContractContext, entries, newKey } from "./contract-context.ts";

/** Characters of 1, 2, 3 and 4 UTF-8 bytes, from ranges wide enough that PostgreSQL cannot compress them. */
const RANGES: [number, number, number][] = [
  [1, 0x21, 0x7e],
  [2, 0x100, 0x7ff],
  [3, 0x4e00, 0x9fff],
  [4, 0x1f300, 0x1faff],
];

/** Random text of exactly `bytes` UTF-8 bytes, of mixed widths (incompressible: a limit is tested as is). */
function textOfBytes(bytes: number, random: () => number): string {
  let out = "";
  let left = bytes;
  while (left > 0) {
    const fitting = RANGES.filter(([width]) => width <= left);
    const [width, low, high] = fitting[Math.floor(random() * fitting.length)] ?? [1, 0x61, 0x7a];
    out += String.fromCodePoint(low + Math.floor(random() * (high - low + 1)));
    left -= width;
  }
  expect(Buffer.byteLength(out, "utf8")).toBe(bytes);
  return out;
}

async function expectValidation(work: Promise<unknown>, path: string): Promise<void> {
  const error = await rejection(work);
  expect(error).toBeInstanceOf(ValidationError);
  expect(error.code).toBe("VALIDATION");
  expect((error.details as { path?: string }).path).toBe(path);
}

/** `entries` with each uuid replaced by a random one of exactly `bytes` bytes. */
function withUuidsOf(list: SessionStoreEntry[], bytes: number, random: () => number): SessionStoreEntry[] {
  return list.map((entry) => ({ ...entry, uuid: textOfBytes(bytes, random) }));
}

/** Checks that `key` holds exactly `stored`, listed where the SDK lists it. */
async function expectStored(store: PalimpsestSessionStore, key: SessionKey, stored: SessionStoreEntry[]) {
  expect(await store.load(key)).toEqual(stored);
  const main = { projectKey: key.projectKey, sessionId: key.sessionId };
  if (key.subpath === undefined) {
    expect((await store.listSessions(key.projectKey)).map((s) => s.sessionId)).toContain(key.sessionId);
  } else expect(await store.listSubkeys(main)).toContain(key.subpath);
}

/**
 * The length limits of the names a database keys (docs/claude-agent-sdk.md, "Keys"): each in UTF-8 bytes,
 * the same on both engines, checked before anything is written. At its limit a name is taken (and with all
 * four at theirs, the widest index row still fits PostgreSQL's btree); one byte over, VALIDATION naming it.
 */
export function limitsContract({ fresh }: ContractContext): void {
  describe("length limits", () => {
    const fields = [
      ["projectKey", MIRROR_LIMITS.project, "key.projectKey"],
      ["sessionId", MIRROR_LIMITS.session, "key.sessionId"],
      ["subpath", MIRROR_LIMITS.subpath, "key.subpath"],
    ] as const;

    it.each(fields)(
      "takes a %s of exactly its limit (%i bytes) and refuses one byte more, storing nothing",
      async (field, limit, path) => {
        const store = await (await fresh()).open();
        const random = seededRandom(limit);
        const base = newKey(field === "subpath" ? "subagents/agent-x" : undefined);
        const atLimit = { ...base, [field]: textOfBytes(limit, random) };
        const batch = entries(3);
        await store.append(atLimit, batch);
        await expectStored(store, atLimit, batch);
        const over = { ...base, [field]: `${textOfBytes(limit, random)}x` };
        await expectValidation(store.append(over, entries(1)), path);
        await expectValidation(store.load(over), path);
        await expectValidation(store.delete(over), path);
        // Far over (what PostgreSQL's index refused with a STORAGE error): VALIDATION as well, on both engines.
        await expectValidation(store.append({ ...base, [field]: textOfBytes(3000, random) }, entries(1)), path);
        if (field === "projectKey") {
          await expectValidation(store.listSessions(over.projectKey), "projectKey");
          expect(await store.listSessions(base.projectKey)).toEqual([]);
        } else {
          expect(await store.listSessions(base.projectKey)).toEqual(
            field === "subpath" ? [] : [expect.objectContaining({ sessionId: atLimit.sessionId })],
          );
        }
        if (field === "subpath") expect(await store.listSubkeys(base)).toEqual([atLimit.subpath]);
      },
    );

    it(`takes an entry uuid of exactly its limit (${MIRROR_LIMITS.uuid} bytes) and refuses one byte more, storing nothing of the batch`, async () => {
      const store = await (await fresh()).open();
      const random = seededRandom(7);
      const key = newKey();
      const atLimit = withUuidsOf(entries(3), MIRROR_LIMITS.uuid, random);
      await store.append(key, atLimit);
      // Stored once: a retry is recognised by the long uuid as by any other.
      await store.append(key, atLimit);
      await expectStored(store, key, atLimit);
      const [over] = withUuidsOf(entries(1), MIRROR_LIMITS.uuid + 1, random);
      await expectValidation(store.append(key, [...entries(1), over as SessionStoreEntry]), "entries[1].uuid");
      const [far] = withUuidsOf(entries(1), 3000, random);
      await expectValidation(store.append(key, [far as SessionStoreEntry]), "entries[0].uuid");
      expect(await store.load(key)).toEqual(atLimit);
    });

    it("takes every name at its limit at once (the widest index row), folds it, and deletes it", async () => {
      const database = await fresh();
      const folds: unknown[] = [];
      const store = await database.open({ onError: (error) => folds.push(error) });
      const random = seededRandom(11);
      const sessionId = textOfBytes(MIRROR_LIMITS.session, random);
      const key = { projectKey: textOfBytes(MIRROR_LIMITS.project, random), sessionId };
      const sub = { ...key, subpath: textOfBytes(MIRROR_LIMITS.subpath, random) };
      const w = new TranscriptWriter(sessionId);
      const lines = withUuidsOf(
        [w.user("a question"), w.assistant("msg_1", text("an answer"))],
        MIRROR_LIMITS.uuid,
        random,
      );
      await store.append(key, lines);
      await store.append(sub, lines);
      await expectStored(store, key, lines);
      await expectStored(store, sub, lines);
      expect((await store.sessionIds(key)).length).toBe(1);
      expect((await store.sessionIds(sub)).length).toBe(1);
      expect(folds).toEqual([]);
      await store.delete(key);
      expect(await store.load(key)).toBeNull();
      expect(await store.listSubkeys(key)).toEqual([]);
    });
  });
}
