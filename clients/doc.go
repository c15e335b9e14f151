// Package clients holds Ermine's real-client tests. The published client
// libraries (npm revolt.js 7.2.0 and stoat.js 7.3.4, pinned in
// package.json and package-lock.json) are driven by Node's test runner
// from test/*.test.mjs against an Ermine binary built and started by
// clients_test.go; msgpack_test.go talks to the events connection in
// msgpack as revoltgo does. Install the Node dependencies with
// `npm ci` in this directory; docs/testing.md says more.
package clients
