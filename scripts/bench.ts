/**
 * `npm run bench -- <name> [--json]`: benchmark scripts, one module per name under scripts/bench/.
 * Each prints human-readable figures, or with --json exactly one JSON line (keys per the issue).
 */
const BENCHES: Record<string, () => Promise<{ main(args: string[]): Promise<void> }>> = {
  executor: () => import("./bench/executor.ts"),
  gpu: () => import("./bench/gpu.ts"),
  "line-fuzz": () => import("./bench/line-fuzz.ts"),
  grammar: () => import("./bench/grammar.ts"),
  import: () => import("./bench/import.ts"),
  newcomer: () => import("./bench/newcomer.ts"),
  policy: () => import("./bench/policy.ts"),
};

const [name, ...rest] = process.argv.slice(2);
const load = name ? BENCHES[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join("|")}> [--json]`);
  process.exit(2);
}
try {
  await (await load()).main(rest);
} catch (e) {
  // Flag errors (src/node/cli.ts CliError) name the flag: message and usage, exit 2; anything else with its stack.
  if (!(e instanceof Error && e.name === "CliError")) throw e;
  console.error(`bench ${name}: ${e.message} (flags: see the header of scripts/bench/${name}.ts)`);
  process.exit(2);
}

// A module (not a script): top-level await, and `name` does not clash with the DOM global.
export {};
