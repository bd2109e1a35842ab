export {
  type EmbeddedDatabase,
  type EmbeddedOptions,
  findRunningEmbedded,
  isProcessAlive,
  startEmbeddedPostgres,
  takeOverShutdownSignals,
} from './embedded.ts';
