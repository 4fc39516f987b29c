import { FIDELITY_KINDS, type FidelityKind, type FidelitySummary } from "@palimpsest/core";

/** Column names of the five kinds, short enough for a terminal. */
const KIND_LABELS: Record<FidelityKind, string> = {
  userRequests: "requests",
  filePaths: "paths",
  errorNames: "errors",
  commands: "commands",
  numbers: "numbers",
};

/** One row to show: a label (a policy, or the source's own compactions) and its fidelity. */
export interface FidelityRow {
  label: string;
  fidelity: FidelitySummary;
}

/**
 * The fidelity `replay` and `eval` print, one row per run: the mean recall over requests (all kinds, then
 * each), and over the compactions what their replacements kept of what they removed, per kind
 * (`kept/removed`), and their size against what they removed. Shared by the text table and the HTML report.
 */
export function fidelityTable(rows: readonly FidelityRow[]): { header: string[]; rows: (string | number)[][] } {
  const header = [
    "policy",
    "mean recall",
    ...FIDELITY_KINDS.map((k) => `recall ${KIND_LABELS[k]}`),
    "compactions",
    ...FIDELITY_KINDS.map((k) => `kept ${KIND_LABELS[k]}`),
    "size/removed",
  ];
  return {
    header,
    rows: rows.map(({ label, fidelity: f }) => [
      label,
      f.requests === 0 ? "-" : share(f.meanRecall),
      ...FIDELITY_KINDS.map((k) => share(f.meanRecallByKind[k])),
      f.compactions,
      ...FIDELITY_KINDS.map((k) =>
        f.removed[k] === 0 ? "-" : `${f.kept[k]}/${f.removed[k]} ${share(f.keptRatio[k])}`,
      ),
      share(f.sizeRatio, 1),
    ]),
  };
}

/** A 0–1 share as a percentage; `-` for null. */
function share(value: number | null, digits = 0): string {
  return value === null ? "-" : `${(value * 100).toFixed(digits)}%`;
}
