import { loadEnv } from '@keyplane/config';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'vite';
import { precompress } from './precompress.ts';

export default defineConfig(({ command }) => {
  const production = command === 'build';
  return {
    // The Keyplane server serves dist/ at /dashboard/ (index.html for any path that is not a file).
    base: '/dashboard/',
    // Tailwind CSS v4 builds the stylesheet from src/styles.css and the classes the sources use.
    plugins: [tailwindcss(), precompress()],
    // Vite 8 compiles TSX itself with oxc; no React plugin is needed without fast refresh. The JSX
    // runtime and React's bundle follow the command, not NODE_ENV: a build run under vitest
    // (NODE_ENV=test) is the same production build that `npm start` serves.
    oxc: { jsx: { runtime: 'automatic', development: !production } },
    define: production ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      // Every asset's name holds its content hash (assets/<name>-<hash>.js): a server caches them for
      // good and only index.html never. The manifest (.vite/manifest.json) maps each entry and
      // route chunk to its files, for a server that preloads them.
      manifest: true,
      rolldownOptions: {
        onwarn(warning, warn) {
          // React Query marks its modules "use client" for server-component bundlers; an SPA has none.
          if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
          warn(warning);
        },
      },
    },
    // `npm run dev`: the API (and its cookie) on the same origin, as in production. The proxy keeps
    // the Host header (Vite's shorthand would rewrite it to the API's), or the API would refuse the
    // dashboard's calls as cross-site. It finds the API on the server's own PORT.
    server: production
      ? {}
      : { proxy: { '/trpc': { target: `http://localhost:${loadEnv().PORT}`, changeOrigin: false } } },
  };
});
