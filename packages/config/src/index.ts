export { CONFIG_ERROR_EXIT_CODE, type Env, EnvError, loadEnv } from './env.ts';
