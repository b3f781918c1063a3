// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'src/generated/', 'exports/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Only the config module may read the environment.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through src/config (getConfig).' },
      ],
    },
  },
  {
    files: ['src/config/**', 'src/db/tools/generate.ts', 'prisma.config.ts', 'test/**', 'bench/**', 'vitest.config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  prettier,
);
