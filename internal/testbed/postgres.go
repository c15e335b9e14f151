package testbed

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// FreshSchema creates an empty schema named prefix plus a random suffix
// in the PostgreSQL database at dsn. It returns a URL whose search_path
// selects the schema, and a function dropping the schema again.
func FreshSchema(ctx context.Context, dsn, prefix string) (string, func() error, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", nil, fmt.Errorf("postgres URL: %w", err)
	}
	name := freshName(prefix)
	if err := statement(ctx, dsn, "CREATE SCHEMA "+name); err != nil {
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	drop := func() error {
		return statement(context.WithoutCancel(ctx), dsn, "DROP SCHEMA IF EXISTS "+name+" CASCADE")
	}
	return u.String(), drop, nil
}

// FreshDatabase creates an empty database named prefix plus a random
// suffix on the PostgreSQL server of dsn (for nodes in separate
// processes, which share it). It returns the database's URL and a
// function dropping it, closing what is still connected.
func FreshDatabase(ctx context.Context, dsn, prefix string) (string, func() error, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", nil, fmt.Errorf("postgres URL: %w", err)
	}
	name := freshName(prefix)
	if err := statement(ctx, dsn, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	u.Path = "/" + name
	drop := func() error {
		return statement(context.WithoutCancel(ctx), dsn, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}
	return u.String(), drop, nil
}

// freshName is prefix with a random suffix: a lower-case identifier no
// other run chooses.
func freshName(prefix string) string {
	return prefix + "_" + strings.ToLower(rand.Text()[:12])
}

// statement runs one statement on a connection of its own, within 30 s.
func statement(ctx context.Context, dsn, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	_, err = c.Exec(ctx, sql)
	return err
}
