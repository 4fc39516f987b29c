import { ValidationError } from "@palimpsest/core";
import { detectFormat } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

describe("detectFormat", () => {
  it.each([
    ['[{"role":"user","content":"hi"}]', "openai"],
    ['{"role":"user","content":"hi"}\n{"role":"assistant","content":"yo"}', "openai"],
    ['{"messages":[]}', "openai"],
    ['{"type":"summary","summary":"t","leafUuid":"x"}\n{"type":"user"}', "claude-code"],
    ['{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}', "claude-code"],
    ['{"instance_id":"i","history":[]}', "openhands"],
    ['{\n  "trajectory": [],\n  "history": []\n}', "swe-agent"],
    ['[{"task_id":1,"traj":[]}]', "tau-bench"],
  ])("recognizes %s as %s", (text, format) => {
    expect(detectFormat(text)).toBe(format);
  });

  it("trusts a .traj file name", () => {
    expect(detectFormat("{}", "a/b.traj")).toBe("swe-agent");
  });

  it("throws a ValidationError on anything else", () => {
    expect(() => detectFormat("hello", "notes.txt")).toThrow(ValidationError);
    expect(() => detectFormat('{"foo":1}')).toThrow(/unrecognized transcript format/);
  });
});
