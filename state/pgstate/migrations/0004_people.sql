-- The web application's people, their memberships, sessions and the
-- sign-in throttle, shared by every node.

CREATE TABLE users (
	name         text PRIMARY KEY,
	email        text UNIQUE, -- lowercase; NULL when none
	hash         text NOT NULL CHECK (hash LIKE '$argon2id$%'),
	must_change  boolean NOT NULL DEFAULT false,
	temp_expires timestamptz,
	created      timestamptz NOT NULL,
	password_set timestamptz NOT NULL
);

CREATE TABLE memberships (
	name text NOT NULL REFERENCES users (name) ON DELETE CASCADE,
	org  text NOT NULL REFERENCES orgs (id),
	role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
	PRIMARY KEY (name, org)
);
CREATE INDEX memberships_org ON memberships (org);

-- A session names its token's SHA-256 digest; it ends with its person's
-- membership of the organisation it acts in (the foreign key cascades).
CREATE TABLE sessions (
	digest  bytea PRIMARY KEY CHECK (length(digest) = 32),
	name    text NOT NULL,
	org     text NOT NULL,
	csrf    text NOT NULL,
	addr    text NOT NULL DEFAULT '',
	created timestamptz NOT NULL,
	seen    timestamptz NOT NULL,
	FOREIGN KEY (name, org) REFERENCES memberships (name, org) ON DELETE CASCADE
);
CREATE INDEX sessions_name ON sessions (name, org);

-- Failed sign-ins per account ('a:' name) and client address ('i:' IPv4
-- or IPv6 /64); until is when a throttled key may try again.
CREATE TABLE signin_failures (
	key   text PRIMARY KEY,
	n     int NOT NULL CHECK (n >= 0),
	last  timestamptz NOT NULL,
	until timestamptz
);

-- frameindex_signin_begin admits one attempt of keys (each with its free
-- failures) at now: under the keys' row locks, taken in key order, it
-- returns the longest wait still due (nothing counted) or, when none is,
-- counts the attempt as a failure of every key and returns 0. The wait
-- after n >= free failures is base * 2^(n-free), at most cap; failures are
-- forgotten after forget without one. One call is one statement, so the
-- count and its check are one step on any node.
CREATE FUNCTION frameindex_signin_begin(keys text[], frees int[], now timestamptz,
	base interval, cap interval, forget interval) RETURNS interval LANGUAGE plpgsql AS $$
DECLARE
	w interval := '0';
	r record;
BEGIN
	INSERT INTO signin_failures (key, n, last)
		SELECT k, 0, now FROM unnest(keys) k ORDER BY k ON CONFLICT (key) DO NOTHING;
	FOR r IN SELECT f.until FROM signin_failures f WHERE f.key = ANY (keys) ORDER BY f.key FOR UPDATE LOOP
		IF r.until > now THEN
			w := greatest(w, r.until - now);
		END IF;
	END LOOP;
	IF w > '0' THEN
		RETURN w;
	END IF;
	UPDATE signin_failures f SET n = c.n, last = now,
		until = CASE WHEN c.n >= c.free THEN now + least(base * power(2, least(c.n - c.free, 30)), cap) ELSE f.until END
	FROM (SELECT k.key, k.free, CASE WHEN now - g.last >= forget THEN 1 ELSE g.n + 1 END AS n
		FROM unnest(keys, frees) AS k (key, free) JOIN signin_failures g ON g.key = k.key) c
	WHERE f.key = c.key;
	RETURN w;
END $$;

-- frameindex_signin_end clears the failures of the keys clear and takes
-- one back from each of uncount (with its free failures), ending a wait
-- that falls below them.
CREATE FUNCTION frameindex_signin_end(clear text[], uncount text[], frees int[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM signin_failures WHERE key = ANY (clear);
	UPDATE signin_failures f SET n = f.n - 1, until = CASE WHEN f.n - 1 < k.free THEN NULL ELSE f.until END
	FROM unnest(uncount, frees) AS k (key, free) WHERE f.key = k.key AND f.n > 0;
	DELETE FROM signin_failures WHERE key = ANY (uncount) AND n <= 0;
END $$;
