import { createRequire } from 'node:module';
import { type ProcedureMeta, PUBLIC_STATUSES, titleOf } from '@keyplane/procedures';
import type { AnyTRPCRouter } from '@trpc/server';
import { stringify } from 'yaml';
import { CLIENT_CLOSED_REQUEST, mediaTypeOf } from './problem.ts';
import { publicProcedureTable } from './procedureTable.ts';

// The OpenAPI 3.1 description of `/v2` (docs/contract.md#transport), generated from the public
// procedures' zod schemas and meta: nothing in it is written by hand but the envelopes, which
// problem.ts and v2.ts build. Zod schemas named with `.meta({ id })` become shared components.

type JsonSchema = Record<string, unknown>;

/** What a zod 4 schema offers for its JSON Schema; tRPC keeps the schemas it was given as they are. */
interface DescribableSchema {
  toJSONSchema(params: {
    target: 'draft-2020-12';
    io: 'input' | 'output';
    unrepresentable: (context: { zodSchema: { _zod: { def: { type: string } } }; message: string }) => JsonSchema;
  }): JsonSchema;
}

interface ProcedureDef {
  inputs: DescribableSchema[];
  output?: DescribableSchema;
  meta?: ProcedureMeta;
}

/** Every root-key call can answer these (docs/contract.md#statuses-and-types); the transport adds 413 and 415. */
const STATUSES_OF_EVERY_PROCEDURE = [400, 401, 403, 413, 415, 429, 500];

const JSON_MEDIA_TYPE = 'application/json';
/** An Accept header asking for errors as problem documents. */
const PROBLEM_ACCEPTED = 'application/problem+json';
const SCHEMAS = '#/components/schemas/';

/** `Bad Request` → `BadRequest`: the name of a status's response and its problem schema. */
const statusName = (status: number) => titleOf(status).replace(/\s+/g, '');

/** The component schema of the error envelope a status answers with. */
export const problemSchemaName = (status: number) => `${statusName(status)}Problem`;

/** The envelope's schema of every status the server sends (499 is only logged: the client is gone). */
function problemSchema(status: number): JsonSchema {
  const error: JsonSchema = {
    type: 'object',
    properties: {
      title: { const: titleOf(status) },
      detail: { type: 'string', description: 'What went wrong, in words a person can act on.' },
      status: { const: status },
      type: {
        type: 'string',
        description: 'The errors base URL followed by `/<system>/<category>/<name>`; clients match on the name.',
      },
      ...(status === 400 ? { errors: { type: 'array', items: { $ref: `${SCHEMAS}FieldError` } } } : {}),
    },
    required: ['title', 'detail', 'status', 'type', ...(status === 400 ? ['errors'] : [])],
    additionalProperties: false,
  };
  return {
    type: 'object',
    properties: { meta: { $ref: `${SCHEMAS}Meta` }, error },
    required: ['meta', 'error'],
    additionalProperties: false,
  };
}

const ENVELOPE_SCHEMAS: Record<string, JsonSchema> = {
  Meta: {
    type: 'object',
    properties: { requestId: { type: 'string', description: 'Also in the `X-Request-Id` header; quote it.' } },
    required: ['requestId'],
    additionalProperties: false,
  },
  FieldError: {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The field, as a path into the body: `body.credits.refill`.' },
      message: { type: 'string' },
      fix: { type: 'string' },
    },
    required: ['location', 'message'],
    additionalProperties: false,
  },
};

const HEADERS = {
  RequestId: { description: 'The id of this request, as in `meta.requestId`.', schema: { type: 'string' } },
  RateLimitLimit: {
    description: "The workspace's API requests per minute, when it has a limit.",
    schema: { type: 'integer' },
  },
  RateLimitRemaining: { description: "Requests left in the workspace's minute.", schema: { type: 'integer' } },
  RateLimitReset: { description: "Seconds until the workspace's minute ends.", schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds until the workspace may call again.', schema: { type: 'integer' } },
};

const header = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': header('RateLimitLimit'),
  'RateLimit-Remaining': header('RateLimitRemaining'),
  'RateLimit-Reset': header('RateLimitReset'),
};

function problemResponse(status: number) {
  return {
    description: titleOf(status),
    headers: {
      'X-Request-Id': header('RequestId'),
      ...(status === 429 ? { ...RATE_LIMIT_HEADERS, 'Retry-After': header('RetryAfter') } : {}),
    },
    // Whatever a caller's Accept may make of this status (mediaTypeOf), with the same body.
    content: Object.fromEntries(
      [mediaTypeOf(status, undefined), mediaTypeOf(status, PROBLEM_ACCEPTED)].map((mediaType) => [
        mediaType,
        { schema: { $ref: `${SCHEMAS}${problemSchemaName(status)}` } },
      ]),
    ),
  };
}

function successResponse(properties: JsonSchema, rateLimited: boolean) {
  return {
    description: 'Success',
    headers: { 'X-Request-Id': header('RequestId'), ...(rateLimited ? RATE_LIMIT_HEADERS : {}) },
    content: {
      [JSON_MEDIA_TYPE]: {
        schema: {
          type: 'object',
          properties: { meta: { $ref: `${SCHEMAS}Meta` }, ...properties },
          required: ['meta', ...Object.keys(properties)],
          additionalProperties: false,
        },
      },
    },
  };
}

/** Replaces `#/$defs/X` references by references to the document's components. */
function pointRefsAt(value: unknown, componentName: (id: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => pointRefsAt(item, componentName));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) =>
      key === '$ref' && typeof entry === 'string' && entry.startsWith('#/$defs/')
        ? [key, `${SCHEMAS}${componentName(entry.slice('#/$defs/'.length))}`]
        : [key, pointRefsAt(entry, componentName)],
    ),
  );
}

/**
 * The JSON Schema of one procedure's input or output, its named parts moved into `components`.
 * Input and output components are kept apart (`KeyInput`, `Key`): defaults and transforms make
 * the two sides differ.
 */
function describe(
  schema: DescribableSchema,
  io: 'input' | 'output',
  procedure: string,
  components: Record<string, JsonSchema>,
): JsonSchema {
  const json = schema.toJSONSchema({
    target: 'draft-2020-12',
    io,
    // A Date leaves the server as JSON.stringify writes it; anything else without a JSON form
    // (an output transform, a map) fails the start-up and openapi.test.ts, naming the procedure.
    unrepresentable: ({ zodSchema, message }) => {
      if (zodSchema._zod.def.type === 'date') return { type: 'string', format: 'date-time' };
      throw new Error(`The ${io} of ${procedure} cannot be described: ${message}.`);
    },
  });
  const componentName = (id: string) => (io === 'input' ? `${id}Input` : id);
  const { $schema: _dialect, $defs, ...root } = pointRefsAt(json, componentName) as JsonSchema;
  for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    const name = componentName(id);
    const known = components[name];
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(definition)) {
      throw new Error(`Two different schemas are named '${id}' (the ${io} of ${procedure} is one of them).`);
    }
    components[name] = definition;
  }
  return root;
}

function probeOperation(summary: string, description: string, failure: number) {
  return {
    get: {
      operationId: summary,
      tags: ['health'],
      summary,
      description,
      security: [],
      responses: {
        '200': successResponse(
          {
            data: {
              type: 'object',
              properties: { message: { const: 'OK' } },
              required: ['message'],
              additionalProperties: false,
            },
          },
          false,
        ),
        [failure]: problemResponse(failure),
      },
    },
  };
}

function buildDocument(router: AnyTRPCRouter) {
  const components: Record<string, JsonSchema> = {};
  const responseStatuses = new Set<number>([500, 503]);
  const paths: Record<string, unknown> = {
    '/v2/liveness': probeOperation('liveness', 'Answers while the process runs; needs no root key.', 500),
    '/v2/readiness': probeOperation(
      'readiness',
      'Answers 200 while this node should receive traffic (PostgreSQL, its schema and Redis are ready), 503 naming each reason otherwise.',
      503,
    ),
  };
  const services = new Set<string>(['health']);
  const procedures = router._def.procedures as Record<string, { _def: ProcedureDef }>;
  for (const [path, { list }] of publicProcedureTable(router)) {
    const def = procedures[path]?._def;
    const [input] = def?.inputs ?? [];
    if (!def || !input || !def.output) throw new Error(`The public procedure ${path} needs an input and an output.`);
    const output = describe(def.output, 'output', path, components);
    const page = output.properties as { data?: JsonSchema; pagination?: JsonSchema } | undefined;
    if (list && (!page?.data || !page.pagination))
      throw new Error(`The list ${path} must answer { data, pagination }.`);
    const success = list ? { data: page?.data, pagination: page?.pagination } : { data: output };
    const statuses = [...new Set([...STATUSES_OF_EVERY_PROCEDURE, ...(def.meta?.errors ?? [])])].sort((a, b) => a - b);
    for (const status of statuses) responseStatuses.add(status);
    const [service = path, name = path] = path.split('.');
    services.add(service);
    paths[`/v2/${path}`] = {
      post: {
        operationId: path,
        tags: [service],
        summary: name,
        ...(def.meta?.auth === 'none' ? { security: [] } : {}),
        ...(def.meta?.auth === 'portalSession' ? { security: [{ portalSession: [] }] } : {}),
        ...(def.meta?.description ? { description: def.meta.description } : {}),
        requestBody: {
          required: true,
          content: { [JSON_MEDIA_TYPE]: { schema: describe(input, 'input', path, components) } },
        },
        responses: {
          '200': successResponse(success, true),
          ...Object.fromEntries(
            statuses.map((status) => [status, { $ref: `#/components/responses/${statusName(status)}` }]),
          ),
        },
      },
    };
  }
  const sentStatuses = Object.keys(PUBLIC_STATUSES)
    .map(Number)
    .filter((status) => status !== CLIENT_CLOSED_REQUEST);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Keyplane API',
      version: (createRequire(import.meta.url)('../../package.json') as { version: string }).version,
      description:
        'Every procedure is `POST /v2/<service>.<procedure>` with a JSON body and a root key (`Authorization: Bearer <ROOT_KEY>`); every answer has `meta.requestId`, a success `data`, a failure `error`.',
    },
    security: [{ rootKey: [] }],
    tags: [...services].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        rootKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'A root key of the workspace, with the permissions the call needs.',
        },
        portalSession: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A portal session's access token (`pat_…`, from portal.exchangeCode); the portal page sends it as the `portal_session` cookie.",
        },
      },
      headers: HEADERS,
      responses: Object.fromEntries(
        [...responseStatuses].sort((a, b) => a - b).map((status) => [statusName(status), problemResponse(status)]),
      ),
      schemas: {
        ...ENVELOPE_SCHEMAS,
        ...Object.fromEntries(sentStatuses.map((status) => [problemSchemaName(status), problemSchema(status)])),
        ...components,
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildDocument>;

export interface OpenApiDescription {
  document: OpenApiDocument;
  json: string;
  yaml: string;
}

const described = new WeakMap<AnyTRPCRouter, OpenApiDescription>();

/** The router's description, built once per router (at start-up) and kept with its JSON and YAML texts. */
export function openApiDescription(router: AnyTRPCRouter): OpenApiDescription {
  let description = described.get(router);
  if (!description) {
    const document = buildDocument(router);
    // No YAML anchors for objects the document repeats: readers expect plain YAML.
    description = {
      document,
      json: JSON.stringify(document),
      yaml: stringify(document, { aliasDuplicateObjects: false }),
    };
    described.set(router, description);
  }
  return description;
}
