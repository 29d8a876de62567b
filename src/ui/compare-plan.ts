/**
 * The paper's comparison (base, golden-tests, self-play, code-a1) queued with one seed, and the
 * queue that starts the next run when the previous one ends. The orchestrator trains one run at a
 * time, so the queue waits for a terminal status event before starting the next.
 */
import { parseConfig, type Config, type Mode } from "../core/config/index.ts";
import type { TrainerEvent } from "../core/loop/events.ts";
import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS, type StepMetrics } from "../core/loop/types.ts";

/** In the paper's order: no training, human tests only, one shared policy, Code-A1. */
export const PAPER_COMPARISON: readonly Mode[] = ["base", "golden-tests", "self-play", "code-a1"];

/** The comparison's configurations: `config` with each mode, same seed and everything else. */
export function comparisonConfigs(config: Readonly<Config>, modes: readonly Mode[] = PAPER_COMPARISON): Config[] {
  return modes.map((mode) => parseConfig({ mode }, config));
}

export interface QueueState {
  pending: Config[];
  /** Run ids started by this queue, in order. */
  started: string[];
  /** The run the queue waits on, or null when idle. */
  current: string | null;
  error: string | null;
}

export const EMPTY_QUEUE: QueueState = { pending: [], started: [], current: null, error: null };

const TERMINAL = new Set(["done", "failed", "stopped"]);

/**
 * A queue of runs over a start function. `onEvent` must receive every TrainerEvent; `onChange`
 * reports the state for the view.
 */
export class RunQueue {
  private state: QueueState = EMPTY_QUEUE;

  constructor(
    private readonly start: (config: Config) => Promise<string>,
    private readonly onChange: (s: QueueState) => void = () => {},
  ) {}

  get snapshot(): QueueState {
    return this.state;
  }

  /** Add runs; starts the first at once when idle. */
  async enqueue(configs: readonly Config[]): Promise<void> {
    this.set({ pending: [...this.state.pending, ...configs], error: null });
    if (this.state.current === null) await this.next();
  }

  /** Feed every trainer event; a terminal status of the current run starts the next. */
  async onEvent(e: TrainerEvent): Promise<void> {
    if (e.type === "status" && e.runId === this.state.current && TERMINAL.has(e.status)) {
      this.set({ current: null });
      if (e.status === "stopped") {
        this.set({ pending: [], error: "queue cleared: the run was stopped" });
        return;
      }
      await this.next();
    }
  }

  clear(): void {
    this.set({ pending: [] });
  }

  private async next(): Promise<void> {
    const [config, ...rest] = this.state.pending;
    if (!config) return;
    this.set({ pending: rest });
    try {
      const id = await this.start(config);
      this.set({ current: id, started: [...this.state.started, id] });
    } catch (err) {
      this.set({ pending: [], error: `could not start the ${config.mode} run: ${(err as Error).message}` });
    }
  }

  private set(p: Partial<QueueState>): void {
    this.state = { ...this.state, ...p };
    this.onChange(this.state);
  }
}

/** Wall-clock metrics differ between any two runs; they are not part of reproduction. */
const TIMING = new Set<string>(["time_sample_ms", "time_grade_ms", "time_update_ms"]);
const REPRO_KEYS = [...STEP_METRIC_KEYS, ...EVAL_METRIC_KEYS].filter((k) => !TIMING.has(k));

export interface ReproductionCheck {
  /** Steps both runs have. */
  steps: number;
  /** Every compared metric equal (within `tolerance`) on every common step. */
  reproduced: boolean;
  /** The first difference, in step order then metric order. */
  firstDifference: { step: number; key: string; a: number | null; b: number | null } | null;
}

/**
 * "Re-run and compare": does run `b` reproduce run `a`'s metrics? Same seed and backend should give
 * identical numbers (tolerance 0); timings are ignored.
 */
export function compareMetrics(a: readonly StepMetrics[], b: readonly StepMetrics[], tolerance = 0): ReproductionCheck {
  const byStep = new Map(b.map((m) => [m.step, m]));
  let steps = 0;
  for (const ma of [...a].sort((x, y) => x.step - y.step)) {
    const mb = byStep.get(ma.step);
    if (!mb) continue;
    steps++;
    for (const key of REPRO_KEYS) {
      const va = ma[key];
      const vb = mb[key];
      const same = va === null || vb === null ? va === vb : Math.abs(va - vb) <= tolerance || (Number.isNaN(va) && Number.isNaN(vb));
      if (!same) return { steps, reproduced: false, firstDifference: { step: ma.step, key, a: va, b: vb } };
    }
  }
  return { steps, reproduced: steps > 0, firstDifference: null };
}
