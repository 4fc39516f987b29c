import { type Keyring, ValidationError } from "@palimpsest/core";

/** `keyring` when it has a Keyring's two functions; else a ValidationError (before anything is opened). */
export function keyringOption(keyring: unknown): Keyring {
  const candidate = keyring as Partial<Keyring> | null;
  if (typeof candidate?.dataKey === "function" && typeof candidate.destroyKey === "function")
    return candidate as Keyring;
  throw new ValidationError(
    "keyring must be a Keyring (dataKey and destroyKey functions)",
    ["keyring: not a Keyring"],
    {
      path: "keyring",
    },
  );
}
