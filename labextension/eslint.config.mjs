// ESLint (flat config): typescript-eslint's recommended rules, as the extension template has
// them, plus curly and eqeqeq; formatting is prettier's (eslint-config-prettier turns off the
// rules that would fight it).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['lib/', 'node_modules/', '../ctx_lab/labextension/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['src/**/*.ts'],
    rules: {
      curly: ['error', 'all'],
      eqeqeq: ['error', 'smart'],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none' }],
      'prefer-arrow-callback': 'error'
    }
  }
);
