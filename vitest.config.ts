import { configDefaults, defineConfig } from "vitest/config";

/**
 * The hostile rounds (tests/unit/grader/hostile-round*.test.ts) and the grader's line and semantics
 * files need nothing but a grader, which is most of their time to start (judge, sandbox, warm-up:
 * about 5 s a file). They run in a project of their own whose files share a worker process
 * (`isolate: false`), where `sharedNodeGrader` hands every file of the process one grader: the
 * grader's own guarantee (nothing one candidate does reaches the next) put to use across files.
 */
const SHARED_GRADER = ["tests/unit/grader/hostile-round*.test.ts", "tests/unit/grader/lines-hostile.test.ts", "tests/unit/grader/semantics.test.ts", "tests/unit/grader/busy-host.test.ts"];

const unit = {
  environment: "node" as const,
  // Vitest's default is one worker fewer than the cores: on CI's two cores, one file at a time.
  // Most unit files wait on Pyodide runner processes, so two at a time fill the cores.
  maxWorkers: 2,
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...unit,
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...SHARED_GRADER],
        },
      },
      {
        test: {
          ...unit,
          name: "unit-grader",
          include: SHARED_GRADER,
          isolate: false,
          env: { CODE_A1_SHARED_GRADER: "1" },
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
