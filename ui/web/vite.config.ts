import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard builds to ui/dist, which `capstan ui` serves. No inline scripts or styles
// end up in index.html, so the server's CSP can forbid them.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 600 },
});
