-- The member whose Explore map a key serves, set only when the web
-- application mints it for the signed-in person; '' for every other key.
ALTER TABLE keys ADD COLUMN member text NOT NULL DEFAULT '';
