// Package testbed starts, seeds and measures Ermine nodes for the
// measurement tools (bench/) and the tests that run whole processes
// (clients/, web/, internal/e2e): a node in-process (StartNode) or the
// built binary as a separate process (Build, StartErmine, StartProcess),
// a fresh PostgreSQL schema or database (FreshSchema, FreshDatabase),
// users, servers, channels, memberships and messages written in bulk
// straight into a store (Seeder), and the CPU time and latency
// percentiles the tools report (CPUTime, Percentile, Describe).
//
// It is not part of the product: only tools and tests import it.
package testbed
