/** Rewrites docs/CONFIG.md from the config field table: `npx tsx scripts/config-doc.ts`. */
import { writeFileSync } from "node:fs";
import { renderConfigDoc } from "../src/core/config/docs.ts";

writeFileSync(new URL("../docs/CONFIG.md", import.meta.url), renderConfigDoc());
console.log("wrote docs/CONFIG.md");
