import { type FormatRecognizer, TRANSCRIPT_FORMATS, ValidationError } from "@palimpsest/core";
import { detectFormat } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

/** Each example and the format it is: the formats' own, and values two formats' shapes could both fit. */
const EXAMPLES: [string, string][] = [
  ['[{"role":"user","content":"hi"}]', "openai"],
  ['{"role":"user","content":"hi"}\n{"role":"assistant","content":"yo"}', "openai"],
  ['{"messages":[]}', "openai"],
  ['{"type":"summary","summary":"t","leafUuid":"x"}\n{"type":"user"}', "claude-code"],
  ['{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}', "claude-code"],
  ['{"instance_id":"i","history":[]}', "openhands"],
  ['{\n  "trajectory": [],\n  "history": []\n}', "swe-agent"],
  ['[{"task_id":1,"traj":[]}]', "tau-bench"],
  ['{"type":"user","messages":[]}', "claude-code"],
  ['{"role":"user","history":[]}', "openhands"],
  ['[{"role":"user","traj":[]}]', "tau-bench"],
  ['{"trajectory_format":"mini-swe-agent-1.1","messages":[],"info":{}}', "mini-swe-agent"],
  ['{"trajectory_format":"other","messages":[]}', "openai"],
];

/** A JSON text's value; undefined when it is not JSON. */
function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

describe("detectFormat", () => {
  it.each(EXAMPLES)("recognizes %s as %s", (text, format) => {
    expect(detectFormat(text)).toBe(format);
  });

  it("asks formats whose recognizers never both take a value, so their order does not matter", () => {
    for (const [text] of EXAMPLES) {
      for (const value of [tryParse(text.split("\n")[0] ?? ""), tryParse(text)]) {
        const takers = TRANSCRIPT_FORMATS.filter((f) => {
          const recognize: FormatRecognizer = f.recognize;
          if (Array.isArray(value)) return recognize.array?.(value) === true;
          return (
            typeof value === "object" && value !== null && recognize.object?.(value as Record<string, unknown>) === true
          );
        });
        expect(takers.length, text).toBeLessThanOrEqual(1);
      }
    }
  });

  it("trusts a .traj file name", () => {
    expect(detectFormat("{}", "a/b.traj")).toBe("swe-agent");
  });

  it("throws a ValidationError on anything else", () => {
    expect(() => detectFormat("hello", "notes.txt")).toThrow(ValidationError);
    expect(() => detectFormat('{"foo":1}')).toThrow(/unrecognized transcript format/);
  });
});
