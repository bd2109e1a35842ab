import { loadEnv } from '@keyplane/config';
import { defineConfig } from 'vite';
import { precompress } from '../dashboard/precompress.ts';

export default defineConfig(({ command }) => {
  const production = command === 'build';
  return {
    // The Keyplane server serves dist/ at /portal/ under a strict Content-Security-Policy
    // (docs/portal.md, The portal page): no inline script or style, nothing from another origin
    // but the provider's https logo. The build makes neither: its script and stylesheet are files.
    base: '/portal/',
    plugins: [precompress()],
    // As the dashboard's build: Vite 8 compiles TSX with oxc, production React whatever NODE_ENV says.
    oxc: { jsx: { runtime: 'automatic', development: !production } },
    define: production ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      // The page is one small chunk: nothing to split, nothing to preload.
      modulePreload: false,
    },
    // `npm run dev`: the API (and the portal_session cookie) on the same origin, as in production.
    server: production
      ? {}
      : {
          port: 5174,
          proxy: { '/trpc': { target: `http://localhost:${loadEnv().PORT}`, changeOrigin: false } },
        },
  };
});
