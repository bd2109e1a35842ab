import { router } from '../../trpc.ts';
import { createApi } from './createApi.ts';
import { getApi } from './getApi.ts';
import { updateApi } from './updateApi.ts';

export const apisRouter = router({ createApi, getApi, updateApi });
