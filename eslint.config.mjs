// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'dist-bench/', 'dist-fuzz/', 'node_modules/', 'coverage/', 'drizzle/', 'data/', '*.config.js', 'eslint.config.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/common/auth/permissions.ts', '**/*.spec.ts'],
    rules: {
      // Who may do what is decided in one table (src/common/auth/permissions.ts): never by comparing a role.
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='includes'] > MemberExpression[property.name='role']",
          message: 'Compare no role by hand: ask can(member, permission) (src/common/auth/permissions.ts).',
        },
        {
          selector:
            "BinaryExpression[operator=/^[!=]==?$/] > Literal[value=/^(student|manager|treasurer|admin)$/]",
          message: 'Compare no role by hand: ask can(member, permission) (src/common/auth/permissions.ts).',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-console': 'off' },
  },
  {
    files: ['src/**/*.cli.ts'],
    rules: { 'no-console': 'off' },
  },
);
