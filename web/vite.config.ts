import { defineConfig } from "vitest/config";
import solid from "vite-plugin-solid";

// The build is committed under internal/webapp/dist and embedded in the
// ermine binary, which serves it under /app/. Content-hashed names and no
// timestamps keep it reproducible: .ci/run rebuilds and compares.
export default defineConfig({
  base: "/app/",
  plugins: [solid()],
  build: {
    outDir: "../internal/webapp/dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 2000,
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
});
