import { describe, expect, it } from "vitest";
import { chooseProfile, describeProfileChoice, profileForModel } from "../../src/compaction/profile-choice.ts";

describe("the profile a session runs under", () => {
  it("is the one its model implies, by family or by provider prefix", () => {
    expect(profileForModel("gpt-4o")).toBe("openai");
    expect(profileForModel("o3-mini")).toBe("openai");
    expect(profileForModel("o1")).toBe("openai");
    expect(profileForModel("openrouter/openai/gpt-4.1")).toBe("openai");
    expect(profileForModel("openai/openrouter-llama-4-maverick")).toBe("openai");
    expect(profileForModel("claude-sonnet-4-5-20250929")).toBe("anthropic");
    expect(profileForModel("anthropic/claude-3-5-sonnet")).toBe("anthropic");
    expect(profileForModel("meta-llama/llama-4-maverick")).toBeUndefined();
    expect(profileForModel("ollama-qwen")).toBeUndefined();
  });

  it("takes the explicit one first, then the session's, the model's, the format's, else anthropic", () => {
    expect(chooseProfile({ explicit: "local", session: "openai", model: "claude-opus-4" })).toEqual({
      name: "local",
      source: "explicit",
    });
    expect(chooseProfile({ session: "local", model: "gpt-4o" })).toEqual({ name: "local", source: "session" });
    const byModel = chooseProfile({ model: "gpt-4o", format: "claude-code" });
    expect(byModel).toEqual({ name: "openai", source: "model", from: "gpt-4o" });
    expect(describeProfileChoice(byModel)).toBe("openai (from model gpt-4o)");
    expect(chooseProfile({ model: "llama-3", format: "tau-bench" })).toEqual({
      name: "openai",
      source: "format",
      from: "tau-bench",
    });
    expect(chooseProfile({ format: "openhands" })).toEqual({ name: "anthropic", source: "default" });
  });
});
