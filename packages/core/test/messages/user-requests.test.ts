import { isUserRequest } from "@palimpsest/core";
import { isHarnessText, requestText } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";
import { assistant, user } from "../support/messages.ts";

describe("isUserRequest", () => {
  it("is a user's non-empty text, not harness text nor an orphan tool result", () => {
    const requests = [
      user("Fix the build"),
      user("  <system-reminder>x</system-reminder>"),
      user("Base directory for this skill: /s\n\n# Skill"),
      user("[Request interrupted by user for tool use]"),
      user("[tool result for unknown call x]", { orphanToolResult: true }),
      user(" \n "),
      assistant("Fix the build"),
    ].map(isUserRequest);
    expect(requests).toEqual([true, false, false, false, false, false, false]);
  });

  it("compares the text with line endings normalized and outer whitespace trimmed", () => {
    expect(requestText("  a\r\nb\rc \n")).toBe("a\nb\nc");
    expect(isHarnessText("\n<task-notification>")).toBe(true);
    expect(isHarnessText("see <system-reminder>")).toBe(false);
  });
});
