/** `.a1run` imports off the page's thread (src/browser/run-import.ts), exposed with comlink as a RunImporter. */
import { expose } from "comlink";
import { importRunFile, type RunImporter } from "../src/browser/run-import.ts";

const importer: RunImporter = { importFile: importRunFile };
expose(importer);
