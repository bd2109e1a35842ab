export {
  type BenchEnv,
  CONFIG_ERROR_EXIT_CODE,
  type Env,
  EnvError,
  loadBenchEnv,
  loadEnv,
  variablesRead,
} from './env.ts';
