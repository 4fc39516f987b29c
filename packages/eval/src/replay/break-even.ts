/**
 * The break-even pass of one session's micro passes, given each committed pass's saving (tokensBefore −
 * tokensAfter) in order: the smallest 1-based k such that the cumulative saving after pass j is ≥ 0 for
 * every j ≥ k. Null when there were no passes or the cumulative saving is negative after the last one.
 */
export function breakEvenPass(savings: readonly number[]): number | null {
  let cumulative = 0;
  let since: number | null = null;
  savings.forEach((saving, i) => {
    cumulative += saving;
    if (cumulative < 0) since = null;
    else since ??= i + 1;
  });
  return since;
}

/**
 * Break-even over several sessions: the latest session's break-even pass (every session has broken even
 * after that many of its own passes). Null when no session had a pass, or one never broke even.
 */
export function breakEvenOverSessions(perSession: readonly (readonly number[])[]): number | null {
  const withPasses = perSession.filter((s) => s.length > 0);
  if (withPasses.length === 0) return null;
  let latest = 0;
  for (const savings of withPasses) {
    const pass = breakEvenPass(savings);
    if (pass === null) return null;
    latest = Math.max(latest, pass);
  }
  return latest;
}
