/** Code in one language, shown in a tab of its own with a copy button (components/CodeSnippets.tsx). */
export interface Snippet {
  /** The tab's id and the snippet's test id (`snippet-<id>`). */
  id: string;
  label: string;
  code: string;
}

/**
 * Verifying a key, filled in with the real server and (when just created) the key itself, in curl,
 * TypeScript with Keyplane's client and with the reference's SDK (wire-compatible), and Python.
 * On the server at `origin`. Each needs a root key with `verify_key` on the key's API, read from KEYPLANE_ROOT_KEY.
 */
export function verifySnippetsFor(origin: string, key = 'YOUR_KEY'): Snippet[] {
  return [
    {
      id: 'curl',
      label: 'curl',
      code: [
        `curl -sS -X POST ${origin}/v2/keys.verifyKey \\`,
        '  -H "Authorization: Bearer $KEYPLANE_ROOT_KEY" \\',
        '  -H "Content-Type: application/json" \\',
        `  -d '{"key": "${key}"}'`,
      ].join('\n'),
    },
    {
      id: 'typescript',
      label: 'TypeScript',
      code: [
        "import { createKeyplaneClient } from '@keyplane/client';",
        '',
        'const keyplane = createKeyplaneClient({',
        `  baseUrl: '${origin}',`,
        '  rootKey: process.env.KEYPLANE_ROOT_KEY,',
        '});',
        '',
        `const result = await keyplane.keys.verifyKey.mutate({ key: '${key}' });`,
        'console.log(result.valid, result.code);',
      ].join('\n'),
    },
    {
      id: 'unkey',
      label: 'Unkey SDK',
      code: [
        "// The reference's SDK works unchanged: Keyplane answers its API.",
        "import { Unkey } from '@unkey/api';",
        '',
        `const unkey = new Unkey({ serverURL: '${origin}', rootKey: process.env.KEYPLANE_ROOT_KEY });`,
        `const { data } = await unkey.keys.verifyKey({ key: '${key}' });`,
        'console.log(data.valid, data.code);',
      ].join('\n'),
    },
    {
      id: 'python',
      label: 'Python',
      code: [
        'import os',
        'import requests',
        '',
        'response = requests.post(',
        `    "${origin}/v2/keys.verifyKey",`,
        '    headers={"Authorization": f"Bearer {os.environ[\'KEYPLANE_ROOT_KEY\']}"},',
        `    json={"key": "${key}"},`,
        ')',
        'result = response.json()["data"]',
        'print(result["valid"], result["code"])',
      ].join('\n'),
    },
  ];
}

/** Creating a key from a backend, for the API given: what a signup flow calls. */
export function createKeySnippetsFor(origin: string, apiId: string): Snippet[] {
  return [
    {
      id: 'create-curl',
      label: 'curl',
      code: [
        `curl -sS -X POST ${origin}/v2/keys.createKey \\`,
        '  -H "Authorization: Bearer $KEYPLANE_ROOT_KEY" \\',
        '  -H "Content-Type: application/json" \\',
        `  -d '{"apiId": "${apiId}", "name": "first-customer"}'`,
      ].join('\n'),
    },
    {
      id: 'create-typescript',
      label: 'TypeScript',
      code: [
        "import { createKeyplaneClient } from '@keyplane/client';",
        '',
        `const keyplane = createKeyplaneClient({ baseUrl: '${origin}', rootKey: process.env.KEYPLANE_ROOT_KEY });`,
        `const { keyId, key } = await keyplane.keys.createKey.mutate({ apiId: '${apiId}', name: 'first-customer' });`,
        '// Hand `key` to your customer: it is shown only now.',
      ].join('\n'),
    },
    {
      id: 'create-unkey',
      label: 'Unkey SDK',
      code: [
        "import { Unkey } from '@unkey/api';",
        '',
        `const unkey = new Unkey({ serverURL: '${origin}', rootKey: process.env.KEYPLANE_ROOT_KEY });`,
        `const { data } = await unkey.keys.createKey({ apiId: '${apiId}', name: 'first-customer' });`,
      ].join('\n'),
    },
    {
      id: 'create-python',
      label: 'Python',
      code: [
        'import os',
        'import requests',
        '',
        'response = requests.post(',
        `    "${origin}/v2/keys.createKey",`,
        '    headers={"Authorization": f"Bearer {os.environ[\'KEYPLANE_ROOT_KEY\']}"},',
        `    json={"apiId": "${apiId}", "name": "first-customer"},`,
        ')',
        'print(response.json()["data"]["key"])',
      ].join('\n'),
    },
  ];
}
