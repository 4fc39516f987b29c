import { type Message, SUMMARY_SECTIONS, type SummaryRequest } from "@palimpsest/core";

/** Secrets planted in the sample transcript; none may appear in a request body. */
export const PLANTED_SECRETS = [
  "sk-proj-Zq9LmNoPqRsTuVwXyZ012345",
  "hunter2-db-password",
  "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  "AKIAIOSFODNN7EXAMPLE",
  "s3cr3tpass",
  "tok_9f8e7d6c5b4a",
] as const;

const text = (t: string) => [{ type: "text" as const, text: t }];

const messages: Message[] = [
  {
    id: "u1",
    role: "user",
    content: text(`Deploy with OPENAI_API_KEY=${PLANTED_SECRETS[0]} and password=${PLANTED_SECRETS[1]}`),
  },
  {
    id: "a1",
    role: "assistant",
    content: text("Checking the config."),
    toolCalls: [
      {
        id: "c1",
        name: "bash",
        arguments: JSON.stringify({ command: `GITHUB_TOKEN=${PLANTED_SECRETS[2]} gh pr list` }),
      },
    ],
  },
  {
    id: "t1",
    role: "tool",
    toolCallId: "c1",
    content: text(
      `aws id ${PLANTED_SECRETS[3]}\npostgres://app:${PLANTED_SECRETS[4]}@db:5432/x\nhttps://h.io/cb?token=${PLANTED_SECRETS[5]}`,
    ),
  },
];

/** A summary request whose messages and previous summary carry planted secrets. */
export const SAMPLE_REQUEST: SummaryRequest = {
  messages,
  previousSummary: `## Goal\n- deploy (api_key: "${PLANTED_SECRETS[1]}")`,
  maxOutputTokens: 500,
};

/** A well-formed answer: every section of SUMMARY_SECTIONS, `state` under Current State, "None" elsewhere. */
export function sectionedAnswer(state: string, omit: readonly string[] = []): string {
  return SUMMARY_SECTIONS.filter((title) => !omit.includes(title))
    .map((title) => `## ${title}\n${title === "Current State" ? state : "None"}`)
    .join("\n\n");
}

/** A chat completion (OpenAI's API) answering `content`, finished normally. */
export function chatCompletion(content: string) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "local-model",
    choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop" }],
    usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 },
  };
}

/** A message (Anthropic's API) answering `text`, ended normally. */
export function anthropicMessage(text: string) {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 300, output_tokens: 40 },
  };
}
