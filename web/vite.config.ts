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

/**
 * Mends one fault of stoat.js 7.3.4's EventClient: when the server (or
 * the network) closes the events socket, its close handler forgets the
 * socket before calling disconnect(), which then returns at once, so the
 * heartbeat interval and the pong and connect timers live on. The
 * orphaned heartbeat then throws "Socket closed, trying to send." while
 * the client waits to reconnect, and after it reconnects it sends a
 * second Ping per interval whose unanswered timer can drop the new
 * connection. Here the close handler calls disconnect() first, which
 * clears the timers and forgets the socket, then reports the state.
 * The build fails if the library's code no longer reads as expected,
 * so an upgrade cannot drop the mend silently (src/lib/eventclient.test.ts
 * checks its effect).
 */
function eventClientCloseMend(): Plugin {
  const faulty = /this\.#socket = undefined;(\s*)this\.setState\(ConnectionState\.Disconnected\);\s*this\.disconnect\(\);/;
  return {
    name: "ermine-stoat-eventclient-close",
    enforce: "pre",
    transform(code, id) {
      if (!id.replace(/\\/g, "/").endsWith("/stoat.js/lib/events/EventClient.js")) return null;
      if (!faulty.test(code)) throw new Error(`${id}: the close handler is not the one eventClientCloseMend mends; check the library's new version`);
      return { code: code.replace(faulty, "this.disconnect();$1this.setState(ConnectionState.Disconnected);"), map: null };
    },
  };
}

// The build is committed under internal/webapp/dist and embedded in the
// ermine binary, which serves it under /app/. Content-hashed names and no
// timestamps keep it reproducible: .ci/run rebuilds and compares.
export default defineConfig({
  base: "/app/",
  plugins: [solid(), emojiSet(), eventClientCloseMend()],
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
    // Through Vite's pipeline, so the tests run the mended EventClient.
    server: { deps: { inline: ["stoat.js"] } },
  },
});
