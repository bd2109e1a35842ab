export {
  type BenchEnv,
  CONFIG_ERROR_EXIT_CODE,
  type Env,
  EnvError,
  loadBenchEnv,
  loadEnv,
  type TrustProxy,
  variablesRead,
} from './env.ts';
