import { ValidationError } from "./errors.ts";

/**
 * Runs `load` (the caller's `import()` of `packageName`, an optional peer dependency) and returns what it
 * resolves to. When Node cannot find that package itself ("Cannot find package '<packageName>'"), a
 * ValidationError (code VALIDATION, `details.path` the package): `<user> needs <packageName>: npm install
 * <packageName>`. Any other failure (the package is there but fails to load, or a package it imports is
 * missing) is rethrown as an Error naming the package, with the original as its `cause`.
 */
export async function loadOptionalPeer<T>(user: string, packageName: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    if (isMissingPackage(cause, packageName)) {
      throw new ValidationError(
        `${user} needs ${packageName}: npm install ${packageName}`,
        [`${packageName}: not installed`],
        { cause, path: packageName },
      );
    }
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new Error(`${user} could not load ${packageName}: ${reason}`, { cause });
  }
}

/** Whether an import failed because `packageName` itself is not installed (ES modules or require()). */
function isMissingPackage(error: unknown, packageName: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code === "ERR_MODULE_NOT_FOUND") return error.message.startsWith(`Cannot find package '${packageName}'`);
  return code === "MODULE_NOT_FOUND" && error.message.startsWith(`Cannot find module '${packageName}'`);
}
