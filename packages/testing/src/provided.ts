// What the global setup provides to every test file (`inject('databaseUrl')`).
declare module 'vitest' {
  interface ProvidedContext {
    /** A server URL (any database) on which test files may create databases. */
    databaseUrl: string;
    /** A migrated database that each test file clones. */
    templateDatabase: string;
  }
}

export {};
