import { defineConfig } from 'vite';

export default defineConfig({
  // The Keyplane server serves dist/ at /dashboard/ (index.html for any path that is not a file).
  base: '/dashboard/',
  // Vite 8 compiles TSX itself with oxc; no React plugin is needed without fast refresh.
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      onwarn(warning, warn) {
        // React Query marks its modules "use client" for server-component bundlers; an SPA has none.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    // `npm run dev`: the API (and its cookie) on the same origin, as in production.
    proxy: { '/trpc': 'http://localhost:7070' },
  },
});
