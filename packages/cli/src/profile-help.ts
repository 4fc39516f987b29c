/** The help line of every `--profile` option: what it is and what it defaults to (docs/compaction.md, "Profiles"). */
export const PROFILE_HELP =
  "the provider profile (default: the session's, else its model's: claude-* anthropic, gpt-*/o1… openai; else its format's; else anthropic)";
