import type { Message } from "@palimpsest/core";
import { toAnthropicRequest, toOpenAIMessages, withoutUnansweredCalls } from "@palimpsest/projections";
import { Option } from "commander";
import type { CliIo } from "./cli-io.ts";

/** The provider request formats a view can be printed as. */
export type RequestFormat = "openai" | "anthropic";

/** `--format openai|anthropic`: print a view as that provider's request body. */
export function requestFormatOption(): Option {
  return new Option("--format <format>", "print the view as this provider's request body (JSON)").choices([
    "openai",
    "anthropic",
  ] satisfies RequestFormat[]);
}

/**
 * Prints messages as the request body of a provider (JSON on the run's stdout), as the provider accepts
 * it: trailing tool calls no result answers (a finished agent's last call) are left out, and stderr says which.
 */
export function printRequestBody(io: CliIo, view: readonly Message[], format: RequestFormat): void {
  const { messages, dropped } = withoutUnansweredCalls(view);
  if (dropped.length > 0) {
    const calls = dropped.map((c) => `${c.name} (${c.id})`).join(", ");
    io.stderr(
      `left out the last assistant message's unanswered tool call${dropped.length === 1 ? "" : "s"} ${calls}: ${format === "openai" ? "OpenAI" : "Anthropic"} refuses a tool call without its result\n`,
    );
  }
  const body = format === "openai" ? { messages: toOpenAIMessages(messages) } : toAnthropicRequest(messages);
  io.stdout(`${JSON.stringify(body, null, 2)}\n`);
}
