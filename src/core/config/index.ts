/** The run configuration: field table, validation, presets, URL query, docs. */
export * from "./fields.ts";
export * from "./parse.ts";
export * from "./presets.ts";
export * from "./query.ts";
