import type { Unkey } from '@unkey/api';
import { APIError, NotFoundErrorResponse, type UnkeyError } from '@unkey/api/models/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import { rejection } from './errors.ts';
import { useKeyplane } from './keyplane.ts';

// The methods of @unkey/api 2.x for the reference product's deploy platform, which Keyplane does
// not serve (its customer portal it does: portal.test.ts) (docs/contract.md, SDK compatibility): each is a 404
// `procedure_not_found`, raised as the SDK's NotFoundErrorResponse where the SDK maps a 404 for
// that method, and as its APIError where it does not.

const keyplane = useKeyplane();
let unkey: Unkey;

beforeAll(() => {
  unkey = keyplane.unkey;
});

const where = { project: 'proj', app: 'app', environment: 'production' };

/**
 * Every such method by the path it calls (the SDK's `internal.*` call `deploy.*`), with the smallest
 * request the SDK itself accepts, and the error class it raises for a 404.
 */
const OUT_OF_SCOPE: [string, (unkey: Unkey) => Promise<unknown>, typeof NotFoundErrorResponse | typeof APIError][] = [
  ['analytics.getGatewayRequests', (u) => u.analytics.getGatewayRequests({ query: 'SELECT 1' }), APIError],
  ['analytics.getRuntimeLogs', (u) => u.analytics.getRuntimeLogs({ query: 'SELECT 1' }), APIError],
  ['apps.createApp', (u) => u.apps.createApp({ project: 'proj', name: 'app', slug: 'app' }), NotFoundErrorResponse],
  ['apps.deleteApp', (u) => u.apps.deleteApp({ project: 'proj', app: 'app' }), NotFoundErrorResponse],
  ['apps.getApp', (u) => u.apps.getApp({ project: 'proj', app: 'app' }), NotFoundErrorResponse],
  ['apps.listApps', (u) => u.apps.listApps({ project: 'proj' }), NotFoundErrorResponse],
  ['apps.updateApp', (u) => u.apps.updateApp({ project: 'proj', app: 'app' }), NotFoundErrorResponse],
  [
    'deployments.createDeployment',
    (u) => u.deployments.createDeployment({ ...where, image: { dockerImage: 'nginx' } }),
    NotFoundErrorResponse,
  ],
  ['deployments.getDeployment', (u) => u.deployments.getDeployment({ deploymentId: 'd' }), NotFoundErrorResponse],
  ['deployments.listDeployments', (u) => u.deployments.listDeployments({}), NotFoundErrorResponse],
  [
    'deployments.promoteDeployment',
    (u) => u.deployments.promoteDeployment({ deploymentId: 'd' }),
    NotFoundErrorResponse,
  ],
  [
    'deployments.rollbackDeployment',
    (u) => u.deployments.rollbackDeployment({ deploymentId: 'd' }),
    NotFoundErrorResponse,
  ],
  ['deployments.startDeployment', (u) => u.deployments.startDeployment({ deploymentId: 'd' }), NotFoundErrorResponse],
  ['deployments.stopDeployment', (u) => u.deployments.stopDeployment({ deploymentId: 'd' }), NotFoundErrorResponse],
  ['domains.createDomain', (u) => u.domains.createDomain({ ...where, domain: 'a.example' }), NotFoundErrorResponse],
  ['domains.deleteDomain', (u) => u.domains.deleteDomain({ domain: 'a.example' }), NotFoundErrorResponse],
  ['domains.getDomain', (u) => u.domains.getDomain({ domain: 'a.example' }), NotFoundErrorResponse],
  ['domains.listDomains', (u) => u.domains.listDomains(where), NotFoundErrorResponse],
  ['domains.verifyDomain', (u) => u.domains.verifyDomain({ domain: 'a.example' }), NotFoundErrorResponse],
  ['environments.getEnvironment', (u) => u.environments.getEnvironment(where), NotFoundErrorResponse],
  [
    'environments.listEnvironmentVariables',
    (u) => u.environments.listEnvironmentVariables(where),
    NotFoundErrorResponse,
  ],
  [
    'environments.listEnvironments',
    (u) => u.environments.listEnvironments({ project: 'proj', app: 'app' }),
    NotFoundErrorResponse,
  ],
  [
    'environments.removeEnvironmentVariables',
    (u) => u.environments.removeEnvironmentVariables({ ...where, variables: ['A'] }),
    NotFoundErrorResponse,
  ],
  [
    'environments.setEnvironmentVariables',
    (u) => u.environments.setEnvironmentVariables({ ...where, variables: [{ key: 'A', value: 'b' }] }),
    NotFoundErrorResponse,
  ],
  ['environments.updateSettings', (u) => u.environments.updateSettings(where), NotFoundErrorResponse],
  ['gateway.listPolicies', (u) => u.gateway.listPolicies(where), NotFoundErrorResponse],
  ['gateway.setPolicies', (u) => u.gateway.setPolicies({ ...where, policies: [] }), NotFoundErrorResponse],
  ['gateway.updatePolicy', (u) => u.gateway.updatePolicy({ ...where, policyId: 'p' }), NotFoundErrorResponse],
  ['github.installApp', (u) => u.github.installApp(), APIError],
  [
    'deploy.createDeployment (internal.createDeployment)',
    (u) =>
      u.internal.createDeployment({
        project: 'proj',
        app: 'app',
        branch: 'main',
        environmentSlug: 'production',
        dockerImage: 'nginx',
      }),
    NotFoundErrorResponse,
  ],
  [
    'deploy.getDeployment (internal.getDeployment)',
    (u) => u.internal.getDeployment({ deploymentId: 'd' }),
    NotFoundErrorResponse,
  ],
  ['projects.createProject', (u) => u.projects.createProject({ name: 'proj', slug: 'proj' }), APIError],
  ['projects.deleteProject', (u) => u.projects.deleteProject({ project: 'proj' }), NotFoundErrorResponse],
  ['projects.getProject', (u) => u.projects.getProject({ project: 'proj' }), NotFoundErrorResponse],
  ['projects.listProjects', (u) => u.projects.listProjects({}), APIError],
  ['projects.updateProject', (u) => u.projects.updateProject({ project: 'proj' }), NotFoundErrorResponse],
];

describe('404', () => {
  it.each(OUT_OF_SCOPE)('%s is a 404 procedure_not_found', async (procedure, call, errorClass) => {
    const error: UnkeyError = await rejection(call(unkey), errorClass, 404);
    const body = JSON.parse(error.body) as { error: { type: string; detail: string } };
    expect(body.error.type).toMatch(/\/service\/routing\/procedure_not_found$/);
    expect(body.error.detail).toContain(procedure.split(' ')[0]);
  });
});
