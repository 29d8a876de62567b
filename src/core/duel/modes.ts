/**
 * Every training mode as data: what differs between Code-A1 and its baselines, in one table, so the
 * step (step.ts) stays the method's numbered steps with no branch per mode. Adding a mode is a row.
 *
 * Sources: ../shared/spec/code-a1.md ("Two policies", "Baselines the paper compares against").
 * The reference's own settings for its Self-Play baseline were not available to us; self-play here
 * uses Code-A1's whole reward recipe (Mistake Book and TopVar on by default, both switchable with
 * `mistake_book` and `topvar`) so that, by default, it differs from code-a1 in one thing only: one
 * shared parameter set, which is the separation the paper credits.
 *
 * Known gap: a shared policy starts from the Code policy's base checkpoint (run-files.ts,
 * trainer-service.ts), because no base has been pretrained on both roles; its tester therefore
 * starts weaker than code-a1's separately pretrained Test policy. A fair comparison needs a base
 * pretrained on both corpora (npm run pretrain-base), which does not exist yet.
 */
import type { Config, Mode } from "../config/fields.ts";

export interface ModeSpec {
  /** One parameter set plays both roles (stored as the "shared" policy). */
  sharedPolicy: boolean;
  /** Which roles the GRPO update trains (with a shared policy both roles train the one policy). */
  trains: { code: boolean; test: boolean };
  /** The Test policy writes suites at all (golden-tests scores programs without them). */
  writesSuites: boolean;
  /** Does the Test policy read the program: `config` follows `white_box`; `never` is black-box. */
  testerSeesCode: "config" | "never";
  /** The Mistake Book takes part in rewards and is updated (still off when `mistake_book` is false). */
  mistakeBook: boolean;
  /**
   * R_C: `suites` = the generated suites (reference-corrected) plus the Mistake Book (rewards.ts
   * codeReward); `golden` = pass rate on the task's human-written golden tests (goldenReward).
   */
  programScore: "suites" | "golden";
  /**
   * R_T: `code-a1` = alpha R_val + (1 - alpha) R_adv (rewards.ts); `cure` = CURE's rule (cure.ts)
   * with every suite run AS WRITTEN (the model's own expected outputs) on every program of its task
   * and correctness decided by the golden tests; `none` when no suites are written.
   */
  suiteScore: "code-a1" | "cure" | "none";
  /**
   * Whose suites train the Test policy: `topvar` = the suites of the top-`topvar_k` codes by R_T
   * spread (all codes when `topvar` is off); `all` = every code's suites; `none` = no tester update.
   */
  testerTrainsOn: "topvar" | "all" | "none";
  /** One line for docs and the UI. */
  summary: string;
}

export const MODE_TABLE = {
  "code-a1": {
    sharedPolicy: false, trains: { code: true, test: true }, writesSuites: true, testerSeesCode: "config", mistakeBook: true,
    programScore: "suites", suiteScore: "code-a1", testerTrainsOn: "topvar",
    summary: "Two policies; the Test policy reads each program (white-box); Mistake Book; TopVar.",
  },
  "golden-tests": {
    sharedPolicy: false, trains: { code: true, test: false }, writesSuites: false, testerSeesCode: "config", mistakeBook: false,
    programScore: "golden", suiteScore: "none", testerTrainsOn: "none",
    summary: "The Code policy alone, rewarded by the human-written golden tests; the Test policy stays the base.",
  },
  "self-play": {
    sharedPolicy: true, trains: { code: true, test: true }, writesSuites: true, testerSeesCode: "config", mistakeBook: true,
    programScore: "suites", suiteScore: "code-a1", testerTrainsOn: "topvar",
    summary: "One shared policy writes programs and (white-box) suites, with Code-A1's rewards.",
  },
  "self-play-blackbox": {
    sharedPolicy: true, trains: { code: true, test: true }, writesSuites: true, testerSeesCode: "never", mistakeBook: true,
    programScore: "suites", suiteScore: "code-a1", testerTrainsOn: "topvar",
    summary: "As self-play, but the tester sees only the task.",
  },
  cure: {
    sharedPolicy: true, trains: { code: true, test: true }, writesSuites: true, testerSeesCode: "never", mistakeBook: false,
    programScore: "golden", suiteScore: "cure", testerTrainsOn: "all",
    summary: "CURE: one shared policy; programs by golden tests; each test by how its own expected outputs separate correct from wrong programs.",
  },
  base: {
    sharedPolicy: false, trains: { code: false, test: false }, writesSuites: true, testerSeesCode: "config", mistakeBook: false,
    programScore: "suites", suiteScore: "code-a1", testerTrainsOn: "none",
    summary: "No training: the base players, sampled and scored as code-a1 for the step metrics only.",
  },
} as const satisfies Record<Mode, ModeSpec>;

export function modeSpec(mode: Mode): ModeSpec {
  return MODE_TABLE[mode];
}

/** One parameter set for both roles? */
export function usesSharedPolicy(mode: Mode): boolean {
  return MODE_TABLE[mode].sharedPolicy;
}

/** Does the Test policy read the program in this run? */
export function isWhiteBox(c: Readonly<Config>): boolean {
  return MODE_TABLE[c.mode].testerSeesCode === "config" && c.white_box;
}

/** Is the Mistake Book used in this run? */
export function usesMistakeBook(c: Readonly<Config>): boolean {
  return MODE_TABLE[c.mode].mistakeBook && c.mistake_book;
}

/**
 * How many codes per task have their suites train the Test policy: 0 (no tester update), topvar_k,
 * or G (TopVar off, or a mode that trains on every suite).
 */
export function testerCodesPerTask(c: Readonly<Config>): number {
  const rule = MODE_TABLE[c.mode].testerTrainsOn;
  if (rule === "none") return 0;
  if (rule === "all" || !c.topvar) return c.num_generations;
  return Math.min(c.topvar_k, c.num_generations);
}
