/**
 * Share links and what the app reads from its URL at launch. The query carries the configuration
 * (configToQuery / configFromQuery: one field table encodes and decodes, as in TensorFlow
 * Playground) plus app-only flags that are not part of the config:
 *   safe=1               open without resuming any stored run (for a run that misbehaves).
 *   debug_pyodide=/path/ load the grader's Pyodide from another path on this origin (a deployment
 *                        whose Pyodide is missing, or never arrives, fails this way).
 *   debug_watchdog_s=N   every watchdog limit N seconds (src/core/duel/watchdog.ts), to see a stuck
 *                        phase fail quickly.
 *   debug_stall_trainer=N the first trainer worker blocks its thread for good once it has started or
 *                        resumed a run, and the page gives a silent trainer N seconds (instead of 60) before
 *                        it restarts it: to see what the app does when its engine hangs.
 */
import { configDiff, configFromQuery, configToQuery, presetConfig, type Config, type PresetName } from "../core/config/index.ts";

/** Query keys the app reads that are not config fields. */
export const APP_FLAGS = ["safe", "debug_pyodide", "debug_watchdog_s", "debug_stall_trainer"] as const;

/** The debugging flags, for the trainer worker (src/browser/trainer-worker.ts TrainerWorkerOptions). */
export interface DebugFlags {
  pyodidePath?: string;
  watchdogS?: number;
  stallTrainerS?: number;
}

export interface Launch {
  config: Config;
  preset: PresetName | null;
  /** The URL carried a config (a share link): apply it instead of the stored/default one. */
  fromUrl: boolean;
  safe: boolean;
  debug: DebugFlags;
  /** A bad query: the message (naming the field); the defaults are used instead. */
  error: string | null;
}

/** Read a launch URL's query (`location.search`). */
export function readLaunch(search: string): Launch {
  const params = new URLSearchParams(search.startsWith("?") ? search.slice(1) : search);
  const safe = params.get("safe") === "1" || params.get("safe") === "true";
  const { debug, problems } = readDebug(params);
  for (const f of APP_FLAGS) params.delete(f);
  const fromUrl = [...params.keys()].length > 0;
  const classroom = { config: presetConfig("classroom"), preset: "classroom" as PresetName };
  const flagError = problems.length ? `Ignored: ${problems.join("; ")}.` : null;
  if (!fromUrl) return { ...classroom, fromUrl, safe, debug, error: flagError };
  try {
    const { config, preset } = configFromQuery(params);
    return { config, preset, fromUrl, safe, debug, error: flagError };
  } catch (e) {
    return { ...classroom, fromUrl: false, safe, debug, error: [`This link's configuration was not applied: ${(e as Error).message}`, flagError].filter(Boolean).join(" ") };
  }
}

function readDebug(params: URLSearchParams): { debug: DebugFlags; problems: string[] } {
  const debug: DebugFlags = {};
  const problems: string[] = [];
  const path = params.get("debug_pyodide");
  if (path !== null) {
    // A path on this origin only: the sandbox's interpreter is never someone else's.
    if (/^\/(?!\/)[^\\?#]*$/.test(path)) debug.pyodidePath = path.endsWith("/") ? path : `${path}/`;
    else problems.push(`debug_pyodide=${path} (a path on this site, such as /pyodide/)`);
  }
  const seconds = params.get("debug_watchdog_s");
  if (seconds !== null) {
    const n = Number(seconds);
    if (Number.isFinite(n) && n > 0 && n <= 3600) debug.watchdogS = n;
    else problems.push(`debug_watchdog_s=${seconds} (seconds, from 0 to 3600)`);
  }
  const stall = params.get("debug_stall_trainer");
  if (stall !== null) {
    const n = Number(stall);
    if (Number.isFinite(n) && n > 0 && n <= 3600) debug.stallTrainerS = n;
    else problems.push(`debug_stall_trainer=${stall} (seconds, from 0 to 3600)`);
  }
  return { debug, problems };
}

/**
 * What a link applied, beyond its preset: "classroom + alpha=0.25, seed 1" (the seed always said),
 * "custom, seed 3" without a preset.
 */
export function launchSummary(config: Readonly<Config>, preset: PresetName | null): string {
  if (!preset) return `custom, seed ${config.seed}`;
  const beyond = Object.entries(configDiff(config, presetConfig(preset))).filter(([k]) => k !== "seed").map(([k, v]) => `${k}=${String(v)}`);
  return `${[preset, ...beyond].join(" + ")}, seed ${config.seed}`;
}

/** A link that reproduces `config` (seed included): `base` is the app's URL without query or hash. */
export function shareUrl(base: string, config: Readonly<Config>, preset: PresetName | null): string {
  const url = new URL(base);
  url.search = configToQuery(config, preset ?? undefined);
  // The seed is always written, even when it equals the preset's, so the link states it.
  if (!url.searchParams.has("seed")) url.searchParams.set("seed", String(config.seed));
  url.hash = "";
  return url.toString();
}
