import { appRouter } from '@keyplane/procedures';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDescription, problemSchemaName } from '../src/http/openapi.ts';

// Every `/v2` answer a test receives is checked against the OpenAPI document the server serves, so
// that an answer drifting from its description fails the test that received it (docs/architecture.md#tests).

const { document } = openApiDescription(appRouter);
const DOCUMENT_ID = 'https://keyplane.test/openapi.json';
// Not strict: the document's own keywords (`paths`, `components`) are no JSON Schema keywords.
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema(document, DOCUMENT_ID);

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema: unknown }>;
}
type Operation = { responses: Record<string, ResponseObject> };

const pointer = (...segments: string[]) =>
  segments.map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** Where the schema of an answer is, or why the document has none. */
function schemaPointer(
  path: string,
  method: string,
  status: number,
  mediaType: string,
): { pointer: string } | { missing: string } {
  const operation = (document.paths as Record<string, Record<string, Operation> | undefined>)[path]?.[method];
  // A method or path the document does not list is answered by the transport with its error envelope.
  if (!operation) return { pointer: pointer('components', 'schemas', problemSchemaName(status)) };
  const response = operation.responses[String(status)];
  if (!response) return { missing: `the document lists no ${status} for ${method.toUpperCase()} ${path}` };
  const location = response.$ref
    ? ['components', 'responses', response.$ref.slice('#/components/responses/'.length)]
    : ['paths', path, method, 'responses', String(status)];
  const described = response.$ref
    ? (document.components as { responses: Record<string, ResponseObject> }).responses[location.at(-1) as string]
    : response;
  if (!described?.content?.[mediaType]) {
    return { missing: `the document has no ${mediaType} answer for ${status} of ${method.toUpperCase()} ${path}` };
  }
  return { pointer: pointer(...location, 'content', mediaType, 'schema') };
}

const validators = new Map<string, ValidateFunction>();

/**
 * Throws, naming the procedure, the status and what differs, unless `body` is what the document
 * says `method path` answers with `status`.
 */
export function assertDescribed(
  requestPath: string,
  method: string,
  reply: { status: number; contentType: string; body: unknown },
): void {
  const { status, body } = reply;
  const path = requestPath.split('?')[0] as string;
  if (!path.startsWith('/v2/') || method.toUpperCase() === 'HEAD') return;
  const found = schemaPointer(path, method.toLowerCase(), status, reply.contentType.split(';')[0]?.trim() ?? '');
  if ('missing' in found) throw new Error(`Undescribed answer: ${found.missing}. Body: ${JSON.stringify(body)}`);
  let validate = validators.get(found.pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${found.pointer}` });
    validators.set(found.pointer, validate);
  }
  if (!validate(body)) {
    throw new Error(
      `The ${status} answer of ${method.toUpperCase()} ${path} differs from the OpenAPI document: ${ajv.errorsText(validate.errors)}. Body: ${JSON.stringify(body)}`,
    );
  }
}

/** Where the document gives examples of a schema, and what ajv finds wrong with each example there. */
export function invalidExamples(): { at: string; errors: string }[] {
  const found: { at: string; errors: string }[] = [];
  const visit = (value: unknown, at: string[]) => {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, [...at, String(index)]);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const { examples } = value as { examples?: unknown };
    if (Array.isArray(examples)) {
      const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer(...at)}` });
      for (const example of examples) {
        if (!validate(example)) found.push({ at: pointer(...at), errors: ajv.errorsText(validate.errors) });
      }
    }
    for (const [key, child] of Object.entries(value)) if (key !== 'examples') visit(child, [...at, key]);
  };
  visit(document, []);
  return found;
}
