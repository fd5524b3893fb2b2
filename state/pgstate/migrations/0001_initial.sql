-- The shared state of frameindex nodes: organisations, their ledgers and
-- usage, keys (digests only), licences, prices, offers, worded-answer
-- reservations and the audit log. Datasets stay in each node's data file.

CREATE TABLE orgs (
	id         text PRIMARY KEY,
	name       text NOT NULL,
	plan       text NOT NULL,
	created    timestamptz NOT NULL,
	credits    bigint NOT NULL DEFAULT 0 CHECK (credits >= 0),
	ledger_seq bigint NOT NULL DEFAULT 0 CHECK (ledger_seq >= 0)
);

-- Entries are numbered per organisation from orgs.ledger_seq, which moves
-- under the organisation's row lock: no gaps, no reuse.
CREATE TABLE ledger (
	org        text NOT NULL REFERENCES orgs (id),
	seq        bigint NOT NULL,
	time       timestamptz NOT NULL,
	kind       text NOT NULL,
	credits    bigint NOT NULL CHECK (credits <> 0),
	balance    bigint NOT NULL CHECK (balance >= 0),
	note       text NOT NULL DEFAULT '',
	key_id     text NOT NULL DEFAULT '',
	dataset    text NOT NULL DEFAULT '',
	request_id text NOT NULL DEFAULT '',
	PRIMARY KEY (org, seq)
);

CREATE TABLE usage (
	org     text NOT NULL REFERENCES orgs (id),
	name    text NOT NULL,
	count   bigint NOT NULL CHECK (count >= 0),
	credits bigint NOT NULL CHECK (credits >= 0),
	PRIMARY KEY (org, name)
);

CREATE TABLE keys (
	id       text PRIMARY KEY,
	org      text NOT NULL REFERENCES orgs (id),
	name     text NOT NULL DEFAULT '',
	preset   text NOT NULL,
	caps     text[] NOT NULL,
	datasets text[] NOT NULL DEFAULT '{}',
	digest   bytea NOT NULL UNIQUE CHECK (length(digest) = 32),
	created  timestamptz NOT NULL,
	expires  timestamptz NOT NULL,
	revoked  timestamptz
);

-- Unix seconds of each key's last use, as the nodes flush them.
CREATE TABLE key_uses (
	id   text PRIMARY KEY,
	last bigint NOT NULL
);

-- One row counting every change to keys; nodes poll it and LISTEN on
-- frameindex_keys, which the trigger notifies with the new version.
CREATE TABLE key_version (
	one     boolean PRIMARY KEY DEFAULT true CHECK (one),
	version bigint NOT NULL
);
INSERT INTO key_version VALUES (true, 0);

CREATE FUNCTION frameindex_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE v bigint;
BEGIN
	UPDATE key_version SET version = version + 1 RETURNING version INTO v;
	PERFORM pg_notify('frameindex_keys', v::text);
	RETURN NULL;
END $$;

CREATE TRIGGER keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON keys
	FOR EACH STATEMENT EXECUTE FUNCTION frameindex_keys_changed();

CREATE TABLE licences (
	org     text NOT NULL REFERENCES orgs (id),
	dataset text NOT NULL,
	mode    text NOT NULL CHECK (mode IN ('subscription', 'per_query')),
	granted timestamptz NOT NULL,
	PRIMARY KEY (org, dataset)
);

-- A dataset's per-query price; without a row, the price in the node's
-- data file applies.
CREATE TABLE prices (
	dataset text PRIMARY KEY,
	price   bigint NOT NULL CHECK (price >= 0)
);

CREATE TABLE offers (
	dataset      text PRIMARY KEY,
	mode         text NOT NULL CHECK (mode IN ('subscription', 'per_query')),
	price        bigint NOT NULL CHECK (price >= 0),
	licence_text text NOT NULL DEFAULT '',
	updated      timestamptz NOT NULL
);

-- Worded answers reserved: pending until committed or refunded. Rows stay
-- (one small row per worded answer) so that a second settlement is told
-- apart from an unknown id.
CREATE TABLE reservations (
	id         bigserial PRIMARY KEY,
	org        text NOT NULL REFERENCES orgs (id),
	key_id     text NOT NULL DEFAULT '',
	request_id text NOT NULL DEFAULT '',
	source     text NOT NULL CHECK (source IN ('allowance', 'credits')),
	credits    bigint NOT NULL CHECK (credits >= 0),
	month      text NOT NULL,
	day        text NOT NULL,
	time       timestamptz NOT NULL,
	state      text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'committed', 'refunded')),
	settled    timestamptz
);
CREATE INDEX reservations_pending ON reservations (time) WHERE state = 'pending';

CREATE TABLE audit (
	seq     bigserial PRIMARY KEY,
	time    timestamptz NOT NULL,
	actor   text NOT NULL,
	org     text NOT NULL DEFAULT '',
	action  text NOT NULL,
	target  text NOT NULL DEFAULT '',
	detail  text NOT NULL DEFAULT '',
	addr    text NOT NULL DEFAULT '',
	outcome text NOT NULL,
	reason  text NOT NULL DEFAULT ''
);
CREATE INDEX audit_org ON audit (org, seq);
