import { defineConfig } from 'vite';

// Preact's JSX runtime, hashed files under assets/, no source maps in the
// embedded build (they would double its size), and no module preload
// polyfill: the browsers we support load modules natively.
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    sourcemap: false,
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
});
