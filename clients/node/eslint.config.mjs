// The Node client's lint (make lint): typescript-eslint's type-checked rules on src/, the
// recommended JavaScript rules on the tests, the bench and this file. tsc --noEmit runs beside it.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", ".tmp/", "src/lua.ts", "test/consumer/"] },
  {
    files: ["src/**/*.ts", "src/**/*.mts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      // An async method without await still turns a throw into a rejected promise, which
      // is the contract of every limiter method (MemoryLimiter's included).
      "@typescript-eslint/require-await": "off",
      eqeqeq: ["error", "always", { null: "ignore" }],
    },
  },
  {
    files: ["test/**/*.mjs", "bench/**/*.mjs", "eslint.config.mjs"],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", ignoreRestSiblings: true }],
    },
  },
);
