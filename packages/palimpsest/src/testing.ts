/** For the tests of a program that uses Palimpsest: the in-memory store (re-exported from @palimpsest/store/testing). */
export * from "@palimpsest/store/testing";
