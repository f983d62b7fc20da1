// ESLint over the web UI's TypeScript (make lint runs it from the web
// folder, whose src/ it reads). ESLint's and typescript-eslint's
// recommended rules, and the React hooks rules that apply to Preact.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const files = ['src/**/*.{ts,tsx}'];

export default [
  // api.gen.ts is generated from the OpenAPI document (make generate).
  { ignores: ['dist/**', 'node_modules/**', 'src/api.gen.ts'] },
  ...[js.configs.recommended, ...tseslint.configs.recommended].map((c) => ({ ...c, files })),
  {
    files,
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      // Effects here are keyed on purpose by the values that should rerun
      // them (a range's key, not the resolved range that moves every
      // render); listing every captured value would rerun searches on
      // each keystroke.
      'react-hooks/exhaustive-deps': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
];
