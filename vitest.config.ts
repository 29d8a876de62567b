import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          // Vitest's default is one worker fewer than the cores: on CI's two cores, one file at a time.
          // Most unit files wait on Pyodide runner processes, so two at a time fill the cores.
          maxWorkers: 2,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/e2e/global-setup.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          // A page under CI's load can take seconds to render what a test waits for: expect.poll
          // answers as soon as it holds, so a generous default costs nothing when things are quick.
          expect: { poll: { timeout: 20_000 } },
        },
      },
    ],
  },
});
