/** `.a1run` imports off the page's thread (src/run-import.ts), exposed with comlink as a RunImporter. */
import { expose } from "comlink";
import { importRunFile, type RunImporter } from "../src/run-import.ts";

const importer: RunImporter = { importFile: importRunFile };
expose(importer);
