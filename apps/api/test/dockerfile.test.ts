import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// No Docker engine runs where the tests do, so the image is kept correct by reading it.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const dockerfile = readFileSync(`${root}docker/Dockerfile`, 'utf8');
const compose = readFileSync(`${root}docker/compose.yaml`, 'utf8');
const workspaces = ['apps', 'packages'].flatMap((folder) =>
  readdirSync(`${root}${folder}`)
    .map((name) => `${folder}/${name}`)
    .filter((path) => existsSync(`${root}${path}/package.json`)),
);

describe('docker/Dockerfile', () => {
  it.each(workspaces)('copies the manifest of %s before installing', (path) => {
    expect(dockerfile).toContain(`COPY ${path}/package.json ${path}/`);
  });

  it('copies the dependency patches before the first install, whose postinstall applies them', () => {
    const patches = dockerfile.indexOf('COPY patches ./patches');
    expect(patches).toBeGreaterThan(-1);
    expect(patches).toBeLessThan(dockerfile.indexOf('RUN npm install'));
  });

  it('keeps patch-package among the runtime dependencies, which the image installs alone', () => {
    const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
    expect(manifest.scripts.postinstall).toContain('patch-package');
    expect(manifest.dependencies['patch-package']).toBeDefined();
  });

  it('creates the event spool directory for the user the server runs as, whose volume it must write', () => {
    expect(dockerfile).toContain('RUN mkdir -p /app/.data/spool && chown -R node:node /app/.data');
    expect(dockerfile.indexOf('chown -R node:node /app/.data')).toBeLessThan(dockerfile.indexOf('USER node'));
  });

  it('starts the server entry point that exists', () => {
    const entry = /CMD \["node", "([^"]+)"\]/.exec(dockerfile)?.[1];
    expect(entry && existsSync(`${root}${entry}`)).toBe(true);
  });
});

describe('docker/compose.yaml', () => {
  it('builds the Dockerfile from the repository root', () => {
    expect(compose).toContain('context: ..');
    expect(compose).toContain('dockerfile: docker/Dockerfile');
  });

  it.each(['DATABASE_URL', 'REDIS_URL', 'VAULT_MASTER_KEY'])('configures %s for the service', (name) => {
    expect(compose).toContain(`${name}:`);
  });

  it('keeps the event spool on a volume, so a restarted container replays what its predecessor left', () => {
    expect(compose).toContain('EVENT_SPOOL_DIR: /app/.data/spool');
    expect(compose).toContain('- keyplane-spool:/app/.data/spool');
    expect(compose).toMatch(/^volumes:\n(?: {2}\S+:\n)*? {2}keyplane-spool:$/m);
  });
});
