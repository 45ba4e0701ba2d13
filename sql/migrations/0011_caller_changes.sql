-- Servers keep the callers they authenticated (a key and its account) in memory (src/metering/callers.ts,
-- ADR 0013). Any change of an account or of one of its keys, whichever process or function makes it (a
-- revocation, a plan or overage change, a prepaid balance paying a request), tells every server listening
-- on channel jps_callers which account to forget. A new key needs no notice: nothing remembers it yet.
CREATE FUNCTION callers_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('jps_callers', OLD.account_id);
  RETURN NULL;
END
$$;

CREATE TRIGGER accounts_changed AFTER UPDATE ON accounts
FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION callers_changed();

CREATE TRIGGER accounts_deleted AFTER DELETE ON accounts
FOR EACH ROW EXECUTE FUNCTION callers_changed();

CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys
FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION callers_changed();

CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
FOR EACH ROW EXECUTE FUNCTION callers_changed();
