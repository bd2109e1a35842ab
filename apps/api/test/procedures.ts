import type { RouterInputs, RouterOutputs } from '@keyplane/procedures';

// The router's own types, so that tests send what a procedure takes and read what it answers.

type Service = keyof RouterInputs & string;

/** Every procedure of the router, as `/v2` and `/trpc` name it: `keys.createKey`, … */
export type ProcedurePath = { [S in Service]: `${S}.${keyof RouterInputs[S] & string}` }[Service];

export type InputOf<P extends ProcedurePath> = P extends `${infer S extends Service}.${infer N}`
  ? N extends keyof RouterInputs[S]
    ? RouterInputs[S][N]
    : never
  : never;

export type OutputOf<P extends ProcedurePath> = P extends `${infer S extends Service}.${infer N}`
  ? N extends keyof RouterOutputs[S]
    ? RouterOutputs[S][N]
    : never
  : never;

/** The list procedures: their output is a page, `{ data, pagination }`. */
export type ListProcedurePath = {
  [P in ProcedurePath]: OutputOf<P> extends { data: unknown[]; pagination: unknown } ? P : never;
}[ProcedurePath];

/** An item of a list procedure's page. */
export type ListItemOf<P extends ListProcedurePath> = OutputOf<P> extends { data: (infer Item)[] } ? Item : never;
