import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// `import { z } from 'zod'` pulls every zod locale into the bundle (about 350 KB); the namespace
// import lets esbuild drop what is unused.
const zodNamespaceOnly = {
  selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
  message: "Use `import * as z from 'zod'`: the named `z` export defeats tree-shaking.",
};

const onlyInRegistry = {
  property: 'registerCommand',
  message:
    'Register commands only in src/ui/registry.ts: return { id, run } definitions (command(...)) from your module and add them in src/ui/commands/index.ts.',
};

const onlyInCompositionRoot = {
  property: 'globalState',
  message:
    "Read and write stored values through StoredState (src/core/state/storedState.ts): add the key to STORED (src/core/stored.ts), then state.get('name').",
};

export default tseslint.config(
  { ignores: ['.scratch/**', 'dist/**', 'node_modules/**', '.vscode-test/**', 'out/**', '*.vsix'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its error: await it, or mark a deliberate fire-and-forget with `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'smart'],
      'no-console': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', zodNamespaceOnly] },
  },
  // Every command goes through one registry, which logs it and wraps it in the one error guard; every
  // stored value goes through StoredState (src/core/state/storedState.ts), which types and checks it.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/ui/registry.ts', 'src/ui/services.ts'],
    rules: { 'no-restricted-properties': ['error', onlyInRegistry, onlyInCompositionRoot] },
  },
  { files: ['src/ui/services.ts'], rules: { 'no-restricted-properties': ['error', onlyInRegistry] } },
  { files: ['src/ui/registry.ts'], rules: { 'no-restricted-properties': ['error', onlyInCompositionRoot] } },
  {
    // src/core must stay testable in plain Node: type-only imports of vscode are fine, runtime ones are not.
    files: ['src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'vscode',
              message: 'src/core must not import vscode at runtime; use `import type` or move the code to src/ui.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
  },
);
