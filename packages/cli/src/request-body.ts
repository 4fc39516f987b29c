import type { Message } from "@palimpsest/core";
import { toAnthropicRequest, toOpenAIMessages } from "@palimpsest/projections";
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

/** Prints messages as the request body of a provider (JSON on the run's stdout). */
export function printRequestBody(io: CliIo, messages: readonly Message[], format: RequestFormat): void {
  const body = format === "openai" ? { messages: toOpenAIMessages(messages) } : toAnthropicRequest(messages);
  io.stdout(`${JSON.stringify(body, null, 2)}\n`);
}
