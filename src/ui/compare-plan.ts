/**
 * The paper's comparison (base, golden-tests, self-play, code-a1) queued with one seed, and the
 * queue that starts the next run when the previous one ends. The orchestrator trains one run at a
 * time, so the queue waits for a terminal status event before starting the next.
 */
import { parseConfig, type Config, type Mode } from "../core/config/index.ts";
import type { TrainerEvent } from "../core/loop/events.ts";

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
