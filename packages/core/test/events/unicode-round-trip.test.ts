import { type DomainEvent, parseStoredEvent, type RawStoredEvent, validateEvent } from "@palimpsest/core";
import { AWKWARD_TEXTS, toolResult, toStoredEvents, unicodeTextArb, userMessage } from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** validate → JSON text → parse → validate again, as a store boundary would. */
function roundTrip(event: DomainEvent): DomainEvent {
  const stored = toStoredEvents("s-uni", [validateEvent(event)])[0] as RawStoredEvent;
  return parseStoredEvent(JSON.parse(JSON.stringify(stored)) as RawStoredEvent);
}

const textOf = (event: DomainEvent) =>
  event.type === "message.appended" ? (event.data.message.content[0] as { text: string }).text : undefined;

describe("text survives validate + JSON round trip byte for byte", () => {
  it.each(AWKWARD_TEXTS.map((t) => [t]))("keeps %j", (text) => {
    const back = roundTrip({ type: "message.appended", data: { message: userMessage("u1", text), tokens: 1 } });
    expect(textOf(back)).toBe(text);
    expect(Buffer.from(textOf(back) ?? "", "utf8").equals(Buffer.from(text, "utf8"))).toBe(true);
  });

  it("keeps lone surrogates, NUL and noncharacters as the same UTF-16 code units", () => {
    const text = "a\uD800b\uDFFFc\u0000\uFFFE\uFFFF\u{10FFFF}\u2028\u2029";
    const back = textOf(roundTrip({ type: "message.appended", data: { message: userMessage("u1", text), tokens: 1 } }));
    expect(back).toBe(text);
    expect(back?.length).toBe(text.length);
  });

  it("keeps any generated text, tool call arguments and opaque reasoning", () => {
    fc.assert(
      fc.property(unicodeTextArb(200), unicodeTextArb(50), (text, args) => {
        const message = {
          ...userMessage("a1", text),
          role: "assistant" as const,
          toolCalls: [{ id: "c1", name: "run", arguments: args }],
          reasoning: { signature: args, blocks: [text] },
        };
        const back = roundTrip({ type: "message.appended", data: { message, tokens: 0 } });
        expect(back.data).toStrictEqual({ message, tokens: 0 });
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a 10 MB tool output intact", () => {
    const chunk = `${AWKWARD_TEXTS.join("|")}\n`;
    const text = chunk.repeat(Math.ceil((10 * 1024 * 1024) / chunk.length)).slice(0, 10 * 1024 * 1024);
    expect(text.length).toBe(10 * 1024 * 1024);
    const back = roundTrip({ type: "message.appended", data: { message: toolResult("r1", "c1", text), tokens: 1 } });
    const out = textOf(back) ?? "";
    expect(out.length).toBe(text.length);
    expect(out === text).toBe(true);
    expect(Buffer.from(out, "utf8").equals(Buffer.from(text, "utf8"))).toBe(true);
  });
});
