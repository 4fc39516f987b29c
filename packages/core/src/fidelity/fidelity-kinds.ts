/**
 * The kinds of fact fidelity counts (docs/fidelity.md defines each with its extraction rule): the user's
 * requests verbatim, the file paths the agent touched, error names in tool results, the commands it ran,
 * and measured numbers (a decimal or a unit).
 */
export const FIDELITY_KINDS = ["userRequests", "filePaths", "errorNames", "commands", "numbers"] as const;

/** One kind of fact fidelity counts. */
export type FidelityKind = (typeof FIDELITY_KINDS)[number];

/** The facts of one message (or a whole conversation), each kind a list of distinct values. */
export type FidelityItems = Record<FidelityKind, string[]>;

/** A value per kind. */
export type PerKind<T> = Record<FidelityKind, T>;

/** An empty item list of every kind. */
export function emptyItems(): FidelityItems {
  return { userRequests: [], filePaths: [], errorNames: [], commands: [], numbers: [] };
}

/** A per-kind record with `value(kind)` for each kind. */
export function perKind<T>(value: (kind: FidelityKind) => T): PerKind<T> {
  return {
    userRequests: value("userRequests"),
    filePaths: value("filePaths"),
    errorNames: value("errorNames"),
    commands: value("commands"),
    numbers: value("numbers"),
  };
}
