import { expect, it } from "vitest";
import { LocksUnavailableError, runLockName, tryLockRun } from "../../../src/storage/lock.ts";

// The locking itself is tested with two real Chromium pages (tests/e2e/storage.test.ts); Node 20
// has no navigator.locks, which is exactly the case this checks.
it("without the Web Locks API, says which browsers have it", async () => {
  expect(() => tryLockRun("r")).toThrow(LocksUnavailableError);
  expect(() => tryLockRun("r")).toThrow(/navigator.locks.*Chrome/);
  expect(runLockName("r1")).toBe("code-a1-arena/run/r1");
});
