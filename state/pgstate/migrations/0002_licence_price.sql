-- A licence records the price agreed when it was granted (per query: the
-- credits per started 100 frames read; subscription: the credits paid), so
-- that later price changes reach new licences only. NULL for a licence
-- granted before prices were recorded: it pays the dataset's current price.
ALTER TABLE licences ADD COLUMN price bigint CHECK (price >= 0);
