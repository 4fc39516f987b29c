/** What every redacted secret becomes. */
export const REDACTED = "[REDACTED]";

/** Names of settings whose value is a secret: `api_key`, `GITHUB_TOKEN`, `"apiKey"`, `password`, … */
const SECRET_KEY =
  "[A-Za-z0-9_.-]*?(?:api[_-]?key|apikey|secret(?:[_-]?key)?|password|passwd|pwd|token|access[_-]?key|auth[_-]?key|private[_-]?key|credentials?)";

/** Token shapes with a recognisable prefix, redacted wherever they appear. */
const TOKEN_PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\bsk-[A-Za-z0-9][A-Za-z0-9_-]{15,}/g,
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\b(?:npm|hf|glpat)[_-][A-Za-z0-9_-]{20,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** `Authorization: Bearer …` / `Basic …` / `Token …` credentials. */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
/** `scheme://user:password@host`: the password goes, the user stays. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:/@]+):([^\s/?#]+)@/gi;
/** Secret-looking query parameters: `?token=…`, `&key=…`, `&sig=…`. */
const QUERY_SECRET =
  /([?&](?:[a-z0-9_-]*token|key|api[_-]?key|apikey|secret|password|sig|signature|auth|client_secret|code_verifier)=)[^&#\s"'<>]+/gi;
/** `key = value`, `key: "value"`, `"key": "value"` and their JSON-escaped forms. */
const ASSIGNMENT = new RegExp(
  `((?:\\\\?["'])?\\b${SECRET_KEY}(?![A-Za-z0-9_])(?:\\\\?["'])?\\s*(?::|=>|=)\\s*)` +
    `(\\\\"(?:[^"\\\\]|\\\\(?!"))*\\\\"|"(?:[^"\\\\\\n]|\\\\.)*"|'(?:[^'\\\\\\n]|\\\\.)*'|(?!\\[REDACTED\\])(?:[^\\s,;&"'}\\]\\\\]|\\\\(?!"))+)`,
  "gi",
);
/** Command-line flags followed by a secret: `--password hunter2`, `--token abc`. */
const SECRET_FLAG = /(--?(?:password|passwd|token|api[-_]?key|secret)\s+)(?!-)(\S+)/gi;

/** Replaces a quoted or bare value with REDACTED, keeping its quotes. */
function redactValue(value: string): string {
  if (value.startsWith('\\"')) return `\\"${REDACTED}\\"`;
  const quote = value[0];
  if (quote === '"' || quote === "'") return `${quote}${REDACTED}${quote}`;
  return REDACTED;
}

/**
 * Removes API keys, tokens, bearer credentials, URL passwords and secret-named settings from `text`.
 * Idempotent: redacting twice gives the same text.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED);
  out = out.replace(AUTH_SCHEME, (_m, scheme: string, space: string) => `${scheme}${space}${REDACTED}`);
  out = out.replace(URL_CREDENTIALS, (_m, scheme: string, user: string) => `${scheme}${user}:***@`);
  out = out.replace(QUERY_SECRET, (_m, name: string) => `${name}${REDACTED}`);
  out = out.replace(ASSIGNMENT, (_m, key: string, value: string) => `${key}${redactValue(value)}`);
  out = out.replace(SECRET_FLAG, (_m, flag: string) => `${flag}${REDACTED}`);
  return out;
}
