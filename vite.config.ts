import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';

export default defineConfig({
  plugins: [
    react(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src/web',
      filename: 'sw.ts',
      injectRegister: false,
      registerType: 'prompt',
      includeAssets: ['favicon.svg'],
      manifest: {
        name: 'Compost – compostage collectif',
        short_name: 'Compost',
        description: 'Suivi des sites de compostage collectif',
        lang: 'fr',
        start_url: '/admin',
        scope: '/',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: '#2f9e44',
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      injectManifest: {
        globPatterns: ['**/*.{js,css,html,svg,woff2}'],
        maximumFileSizeToCacheInBytes: 5 * 1024 * 1024,
      },
      devOptions: { enabled: false },
    }),
  ],
  resolve: {
    alias: [
      // Dexie's ES2018+ build: about 1 KB gzip lighter than the ES5 one its package entry wraps
      // (the wrapper only guards against two copies of Dexie, and this bundle has one).
      { find: /^dexie$/, replacement: fileURLToPath(new URL('./node_modules/dexie/dist/modern/dexie.mjs', import.meta.url)) },
    ],
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/logout': 'http://127.0.0.1:3000' } },
  build: {
    outDir: 'dist',
    sourcemap: false,
    manifest: true,
    chunkSizeWarningLimit: 1500,
    // Every browser the PWA targets preloads modules natively; the polyfill would only add
    // weight to the first load (an older browser still loads the chunks, just not ahead).
    modulePreload: { polyfill: false },
    rolldownOptions: {
      // The app, and the public page of a site (/s/{code}, served by plugins/web.ts): its own
      // light entry, React and the page alone, for phones on a weak connection.
      input: {
        index: fileURLToPath(new URL('./index.html', import.meta.url)),
        'public-site': fileURLToPath(new URL('./src/web/modules/public-sites/public-site.html', import.meta.url)),
      },
      output: {
        codeSplitting: {
          // The field form (the site sheet's blocks, with what they import) is one chunk that
          // the shell loads with itself: the phone screen people use most then comes in a few
          // files instead of about thirty small ones, which gzip smaller (bench: JavaScript of
          // /admin/fiche/site/{id}, budget 250 KB). The calendar pickers (@mantine/dates) stay
          // out of it: the sheet uses the phone's own date input, and only the desk screens
          // that show a calendar load one.
          groups: [
            // React on its own: the public page of a site (its own entry) needs it and nothing
            // else of the field form's chunk, which would otherwise carry React with it.
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/, priority: 1 },
            {
              name: 'field-form',
              test: /src[\\/]web[\\/]modules[\\/]field-entry[\\/](intervention-block-fields|site-sheet-form|site-sheet-validation|use-sheet-form)/,
            },
          ],
        },
      },
    },
  },
});
