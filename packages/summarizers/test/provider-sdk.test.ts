import { ValidationError } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { loadProviderSdk } from "../src/provider-sdk.ts";

describe("loadProviderSdk", () => {
  it("returns the SDK's default export when the package is installed", async () => {
    const OpenAI = await loadProviderSdk("OpenAICompatibleSummarizer", "openai", () => import("openai"));
    expect(typeof OpenAI).toBe("function");
  });

  it("names the install command in a VALIDATION error when the package is not installed", async () => {
    const missing = "palimpsest-no-such-sdk";
    const loading = loadProviderSdk("SomeSummarizer", missing, () => import(missing));
    await expect(loading).rejects.toBeInstanceOf(ValidationError);
    await expect(loading).rejects.toMatchObject({
      code: "VALIDATION",
      message: `SomeSummarizer needs ${missing}: npm install ${missing}`,
      details: { path: missing, issues: [{ path: "", code: "custom", message: `${missing}: not installed` }] },
      cause: { code: "ERR_MODULE_NOT_FOUND" },
    });
  });
});
