import { DEFAULT_ENCODING, encodingForModel } from "@palimpsest/core/tokenizer";
import { describe, expect, it } from "vitest";

describe("encodingForModel", () => {
  it.each([
    "gpt-4o",
    "gpt-4o-mini-2024-07-18",
    "gpt-4.1-nano",
    "gpt-4.5-preview",
    "gpt-5",
    "gpt-5.2-codex",
    "o1",
    "o1-mini",
    "o3-pro",
    "o4-mini-2025-04-16",
    "chatgpt-4o-latest",
    "openai/gpt-4o",
    "GPT-4O",
  ])("maps %s to o200k_base", (model) => {
    expect(encodingForModel(model)).toBe("o200k_base");
  });

  it.each([
    "gpt-4",
    "gpt-4-0613",
    "gpt-4-turbo",
    "gpt-4-32k",
    "gpt-3.5-turbo",
    "gpt-35-turbo",
    "text-embedding-3-small",
    "text-embedding-ada-002",
    "azure/gpt-4-turbo",
  ])("maps %s to cl100k_base", (model) => {
    expect(encodingForModel(model)).toBe("cl100k_base");
  });

  it.each(["claude-opus-4-6", "claude-3-5-sonnet-20241022", "anthropic/claude-sonnet-4", "llama-3-70b", "o10", ""])(
    "defaults %s to o200k_base",
    (model) => {
      expect(encodingForModel(model)).toBe("o200k_base");
    },
  );

  it("defaults an undefined model to o200k_base", () => {
    expect(DEFAULT_ENCODING).toBe("o200k_base");
    expect(encodingForModel()).toBe("o200k_base");
    expect(encodingForModel(undefined)).toBe("o200k_base");
  });
});
