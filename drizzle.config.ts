import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // Every module's tables (a module owns its `<module>.schema.ts`).
  schema: './src/modules/*/*.schema.ts',
  out: './drizzle',
});
