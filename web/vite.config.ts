import { defineConfig, type Plugin } from "vitest/config";
import solid from "vite-plugin-solid";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The Unicode emoji set the client draws (Twemoji's graphics as the npm
 * package @twemoji/svg publishes them), copied into the build under
 * emoji/ so the binary serves them itself: nothing loads from another
 * host. Their licence goes with them (emoji/LICENSE.txt).
 */
function emojiSet(): Plugin {
  const dir = path.resolve("node_modules/@twemoji/svg");
  return {
    name: "ermine-emoji-set",
    apply: "build",
    generateBundle() {
      for (const name of readdirSync(dir).filter((n) => n.endsWith(".svg")).sort()) {
        this.emitFile({ type: "asset", fileName: `emoji/${name}`, source: readFileSync(path.join(dir, name)) });
      }
      this.emitFile({
        type: "asset",
        fileName: "emoji/LICENSE.txt",
        source:
          "Emoji graphics: Twemoji, Copyright 2019 Twitter, Inc and other contributors (https://github.com/jdecked/twemoji),\n" +
          "licensed under CC-BY 4.0 (https://creativecommons.org/licenses/by/4.0/).\n" +
          "Optimised SVG files from the npm package @twemoji/svg 15.0.0, whose licence follows.\n\n" +
          readFileSync(path.join(dir, "license"), "utf8"),
      });
    },
  };
}

// The build is committed under internal/webapp/dist and embedded in the
// ermine binary, which serves it under /app/. Content-hashed names and no
// timestamps keep it reproducible: .ci/run rebuilds and compares.
export default defineConfig({
  base: "/app/",
  plugins: [solid(), emojiSet()],
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
