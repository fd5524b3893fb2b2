package pgstate

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// KeyChannel is the channel on which the database notifies every change
// to the keys (a trigger on the keys table), with the new key version.
const KeyChannel = "frameindex_keys"

// DefaultKeyPoll is how often WatchKeys reads the key version when no
// notification comes: the bound on how late a node learns of a key change
// while its LISTEN connection is down.
const DefaultKeyPoll = time.Second

// WatchKeys calls changed with the new key version whenever the keys
// change (a key minted, revoked or imported on any node), until ctx is
// done. It LISTENs on KeyChannel over a connection of its own and, as a
// fallback for a lost notification or connection, reads the key version
// every poll (DefaultKeyPoll when zero). seen is the version the caller
// already holds (KeyringVersion's). A change therefore reaches changed
// within poll, usually within milliseconds; the caller then reloads its
// Keyring. While the database is unreachable nothing is called and the
// caller keeps the keys it has; WatchKeys reconnects by itself. changed
// runs on WatchKeys's goroutine, one call at a time.
func (s *Store) WatchKeys(ctx context.Context, poll time.Duration, seen int64, changed func(version int64)) {
	if poll <= 0 {
		poll = DefaultKeyPoll
	}
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for ctx.Err() == nil {
		if conn == nil {
			cctx, cancel := context.WithTimeout(ctx, poll)
			c, err := pgx.ConnectConfig(cctx, s.pool.Config().ConnConfig.Copy())
			if err == nil {
				if _, err = c.Exec(cctx, "LISTEN "+KeyChannel); err == nil {
					conn = c
				} else {
					c.Close(context.Background())
				}
			}
			cancel()
		}
		start := time.Now()
		if conn != nil {
			wctx, cancel := context.WithTimeout(ctx, poll)
			_, err := conn.WaitForNotification(wctx)
			cancel()
			if err != nil && conn.IsClosed() {
				conn = nil
			}
		}
		if conn == nil {
			// Without a connection, wait out the rest of the poll.
			select {
			case <-ctx.Done():
				return
			case <-time.After(poll - time.Since(start)):
			}
		}
		if ctx.Err() != nil {
			return
		}
		v, err := s.KeyVersion(ctx)
		if err == nil && v != seen {
			seen = v
			changed(v)
		}
	}
}
