import { router } from '../../trpc.ts';
import { createApi } from './createApi.ts';
import { deleteApi } from './deleteApi.ts';
import { getApi } from './getApi.ts';
import { listApis } from './listApis.ts';
import { listKeys } from './listKeys.ts';
import { listKeysPage } from './listKeysPage.ts';
import { updateApi } from './updateApi.ts';

export const apisRouter = router({ createApi, deleteApi, getApi, listApis, listKeys, listKeysPage, updateApi });
