package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestStartStopStart(t *testing.T) {
	c := Start(t)
	ping := func() error {
		conn, err := pgx.Connect(context.Background(), c.URL())
		if err != nil {
			return err
		}
		return conn.Close(context.Background())
	}
	if err := ping(); err != nil {
		t.Fatal(err)
	}
	u := c.NewDatabase(t)
	if u == c.URL() {
		t.Fatal("NewDatabase returned the default database")
	}
	c.Stop()
	if err := ping(); err == nil {
		t.Fatal("connected to a stopped cluster")
	}
	c.Start()
	if err := ping(); err != nil {
		t.Fatal(err)
	}
}
