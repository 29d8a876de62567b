/**
 * Settings > Export to verl: the browser's `npm run export -- verl` (src/core/export/verl.ts), for
 * the config in the form and its task set (config task_set), with the plus tests of the app's
 * shipped quick-look bench in val.parquet where it has them; one zip to download. Loaded on demand (the Parquet writer stays out
 * of the app's first load).
 */
import rewardModule from "../core/export/arena_reward.py?raw";
import { appBenchPath, builtinTaskSet } from "../core/arena/task-suite.ts";
import type { Config } from "../core/config/index.ts";
import { benchPlus, buildVerlExport, verlExportZip } from "../core/export/verl.ts";
import { fetchAppFile } from "./app-files.ts";

export async function verlDownload(config: Config, preset: string | null): Promise<{ blob: Blob; fileName: string }> {
  const file = builtinTaskSet(config.task_set)!;
  const bench = await fetchAppFile(appBenchPath(config.task_set));
  const plus = bench ? await benchPlus(file, await bench.json()) : null;
  const name = preset ?? "custom";
  const e = buildVerlExport({ file, config, preset: name, rewardModule, plus: plus ?? undefined });
  const folder = `verl-${file.name}-${name}-seed${config.seed}`;
  return { blob: new Blob([verlExportZip(e, folder) as Uint8Array<ArrayBuffer>], { type: "application/zip" }), fileName: `${folder}.zip` };
}
