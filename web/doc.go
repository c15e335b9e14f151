// Package web holds the source of Ermine's own web client (TypeScript,
// Solid, Vite; see README.md in the repository root) and its tests:
// web_test.go runs the Vitest unit tests and the end-to-end test
// (e2e/e2e.mjs, headless Chromium driven by playwright-core) against an
// Ermine binary it builds and starts. `npm ci` here installs what they
// need; `npm run build` writes the build that internal/webapp embeds.
package web
