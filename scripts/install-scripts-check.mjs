// `npm run deps:scripts-check` (CI): every installed dependency with an install script (preinstall, install,
// postinstall) is reviewed in package.json's `allowScripts` (allowed or denied), as npm 11 asks: without it,
// `npm ci` ends with "packages have install scripts not yet covered by allowScripts". Reads node_modules only.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const reviewed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).allowScripts ?? {};
const unreviewed = new Set();

function visit(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      visit(path);
      continue;
    }
    const manifest = join(path, 'package.json');
    if (existsSync(manifest)) {
      const { name, version, scripts = {} } = JSON.parse(readFileSync(manifest, 'utf8'));
      const lifecycle = ['preinstall', 'install', 'postinstall'].filter((s) => scripts[s]);
      if (lifecycle.length && !(name in reviewed)) unreviewed.add(`${name}@${version} (${lifecycle.join(', ')})`);
    }
    visit(join(path, 'node_modules'));
  }
}

visit(join(root, 'node_modules'));
if (unreviewed.size) {
  for (const line of [...unreviewed].sort()) console.log(`not in allowScripts: ${line}`);
  console.log('Review them: npm install-scripts ls, then approve or deny each.');
  process.exit(1);
}
console.log(`every dependency install script is reviewed in allowScripts (${Object.keys(reviewed).length} entries)`);
