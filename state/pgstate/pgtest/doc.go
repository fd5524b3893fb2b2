// Package pgtest starts throwaway PostgreSQL clusters for tests: initdb in
// a temporary directory, a postgres server on a free loopback port with
// fsync off (PGTEST_DURABLE=1 keeps the defaults, for benchmarks), stopped
// and removed when the test ends. Start gives a test a cluster of its own
// (which it may Stop and Start again on the same port); Shared gives the
// tests of a process one cluster, each test a database of its own
// (NewDatabase), removed by StopShared from TestMain.
//
// PostgreSQL refuses to run as root; when the test runs as root (as it
// does in CI containers) the cluster runs as the system user "postgres",
// which the postgresql package creates, from a directory that user owns.
// Tests skip, with a message containing "absent", when no
// /usr/lib/postgresql/*/bin/postgres is installed (or, as root, when there
// is no postgres user, or on a system other than Unix). Clients connect
// over TCP as "postgres" without a password (trust authentication).
//
// Safe for use by parallel tests: every Cluster has its own directory and
// port. A Cluster's methods are not safe for concurrent use with each other.
package pgtest
