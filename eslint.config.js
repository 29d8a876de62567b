import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "public/", "test-artifacts/", "runs/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.worker } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Everything random takes a seeded generator (src/core/rng.ts).
      "no-restricted-properties": ["error", { object: "Math", property: "random", message: "Use a seeded Rng from src/core/rng.ts." }],
    },
  },
  {
    // src/core runs unchanged in Node and the browser: no DOM, no window, no Worker.
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-globals": ["error", "window", "document", "Worker", "localStorage", "indexedDB"],
    },
  },
);
