import { errorNames } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

describe("errorNames", () => {
  it("are exception names, errno and diagnostic codes, signals; not bare Error, not exit codes", () => {
    expect(
      errorNames(
        "TypeError: x is undefined\nError: boom\nExit code 1\nENOENT: no such file\n** (Ecto.NoResultsError)\n" +
          "src/a.ts(3,1): error TS2345: bad\nerror[E0308]: mismatched\nERR_MODULE_NOT_FOUND\nkilled by SIGKILL\nTS2322 alone",
      ),
    ).toEqual(["TypeError", "NoResultsError", "ENOENT", "ERR_MODULE_NOT_FOUND", "TS2345", "E0308", "SIGKILL"]);
  });

  it("include names with an upper-case run before Error or Exception (OSError, SQLException), not bare Exception", () => {
    expect(errorNames("OSError: [Errno 98]\njava.sql.SQLException: x\nurllib.error.HTTPError\nException: y")).toEqual([
      "OSError",
      "SQLException",
      "HTTPError",
    ]);
  });

  it("are whole words: no plural, no E-word that is not an errno, no code without its diagnostic", () => {
    expect(errorNames("TypeErrors here; EPIC EXIT EDITOR; E0308 bare; ENOENTS; SIGFOO")).toEqual([]);
  });
});
