import { type Message, ValidationError } from "@palimpsest/core";
import { toAnthropicRequest, toOpenAIMessages } from "@palimpsest/projections";
import type { CliIo } from "./cli-io.ts";

/** The provider request formats a view can be printed as. */
export type RequestFormat = "openai" | "anthropic";

/** A `--format` flag value: undefined when absent; ValidationError when it names no format. */
export function requestFormat(format: string | undefined): RequestFormat | undefined {
  if (format === undefined || format === "openai" || format === "anthropic") return format;
  throw new ValidationError(`unknown format ${format}: expected openai or anthropic`, ["--format"]);
}

/** Prints messages as the request body of a provider (JSON on the run's stdout). */
export function printRequestBody(io: CliIo, messages: readonly Message[], format: RequestFormat): void {
  const body = format === "openai" ? { messages: toOpenAIMessages(messages) } : toAnthropicRequest(messages);
  io.stdout(`${JSON.stringify(body, null, 2)}\n`);
}
