// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries. A module's public face is its `src/modules/<m>/index.ts`: from another module, import `../<m>`
 * (or `../../<m>` from a subfolder), never a file behind it. Relative specifiers carry no depth of their own, so one
 * block per folder depth: from depth `d` under src/modules/<m>/, exactly `d` steps up lands in src/modules/.
 * Exception: a `*.schema.ts` imports another module's `*.schema.ts`, and only that (a foreign key needs the table
 * object; a schema that loaded a whole module through its index would make cycles, and drizzle-kit, which reads the
 * schema files alone, would load Nest modules).
 */
const MODULE_DEPTHS = [1, 2, 3, 4];
const pastIndex = (depth, { schemaFile }) => ({
  // `../other/file` from depth 1, `../../other/file` from depth 2, …; `./x`, `../../common/…` do not match. From a
  // schema file: anything of another module but its `*.schema.ts`, the index included.
  regex: schemaFile
    ? `^(?:\\.\\./){${depth}}[^./][^/]*(?:/(?![^/]+\\.schema$).*)?$`
    : `^(?:\\.\\./){${depth}}[^./][^/]*/.+`,
  message: schemaFile
    ? "A schema file imports of another module only its *.schema.ts (for a foreign key's table), never its index."
    : "Import another module through its index ('../<module>'), not a file behind it.",
});
const moduleBoundaries = MODULE_DEPTHS.flatMap((depth) => {
  const folder = `src/modules/*/${'*/'.repeat(depth - 1)}`;
  return [
    {
      files: [`${folder}*.ts`],
      ignores: [`${folder}*.schema.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns: [pastIndex(depth, { schemaFile: false })] }] },
    },
    {
      files: [`${folder}*.schema.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns: [pastIndex(depth, { schemaFile: true })] }] },
    },
  ];
});

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
  ...moduleBoundaries,
  {
    // The layers below the modules know none of them: a module builds on common/, database/ and config/, never back.
    files: ['src/common/**/*.ts', 'src/database/**/*.ts', 'src/config/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?:\\.\\./)+modules(?:/|$)',
              message: 'common/, database/ and config/ sit below the modules: import none of them.',
            },
          ],
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
