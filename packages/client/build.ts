/**
 * Builds the package as it is published (docs/architecture.md, Packages): JavaScript by
 * tsc, its declarations bundled into one file by rollup-plugin-dts, and a manifest of its own, so
 * that the published package names no workspace package while the monorepo imports src/.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const DIST = here('dist');
const DECLARATIONS = here('dist/.types');
/** The only modules the published declarations may import: the package's own dependencies. */
const PUBLISHED_IMPORT = /^@trpc\/(client|server)(\/|$)/;

rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', here('tsconfig.build.json')], { stdio: 'inherit' });

const bundle = await rollup({ input: `${DECLARATIONS}/index.d.ts`, plugins: [dts()] });
await bundle.write({ file: `${DIST}/index.d.ts`, format: 'es' });
await bundle.close();
rmSync(DECLARATIONS, { recursive: true });

const declarations = readFileSync(`${DIST}/index.d.ts`, 'utf8');
const imported = [...declarations.matchAll(/(?:from\s+|import\(\s*)['"]([^'"]+)['"]/g)].map((match) => match[1]);
const foreign = imported.filter((specifier) => !PUBLISHED_IMPORT.test(specifier ?? ''));
if (foreign.length > 0) throw new Error(`dist/index.d.ts imports ${[...new Set(foreign)].join(', ')}`);

interface Manifest {
  name: string;
  version: string;
  description?: string;
  dependencies: Record<string, string>;
}
const source = JSON.parse(readFileSync(here('package.json'), 'utf8')) as Manifest;
// Workspace packages are there only for their types, which the declarations now carry.
const dependencies = Object.fromEntries(
  Object.entries(source.dependencies).filter(([name]) => !name.startsWith('@keyplane/')),
);
const published = {
  name: source.name,
  version: source.version,
  description: source.description,
  type: 'module',
  exports: { '.': { types: './index.d.ts', default: './index.js' } },
  sideEffects: false,
  dependencies,
};
writeFileSync(`${DIST}/package.json`, `${JSON.stringify(published, null, 2)}\n`);
copyFileSync(here('README.md'), `${DIST}/README.md`);
